//! Requests written for the JSON entry, and request bodies read out of
//! its answers byte for byte.

use crate::json::{self, Value};
use crate::{Error, Request};

/// A request object being written: `{"op":...,"name":value,...}`.
pub(crate) struct Fields(String);

impl Fields {
    pub(crate) fn new(op: &str) -> Fields {
        Fields(format!("{{\"op\":{}", json::quote(op)))
    }
    /// A member whose value is JSON text already.
    pub(crate) fn raw(mut self, name: &str, value: &str) -> Fields {
        self.0.push(',');
        self.0.push_str(&json::quote(name));
        self.0.push(':');
        self.0.push_str(value);
        self
    }
    pub(crate) fn text(self, name: &str, value: &str) -> Fields {
        let v = json::quote(value);
        self.raw(name, &v)
    }
    pub(crate) fn opt_text(self, name: &str, value: &Option<String>) -> Fields {
        match value {
            Some(v) => self.text(name, v),
            None => self,
        }
    }
    pub(crate) fn opt_raw(self, name: &str, value: &Option<String>) -> Fields {
        match value {
            Some(v) => self.raw(name, v),
            None => self,
        }
    }
    pub(crate) fn number<T: std::fmt::Display>(self, name: &str, value: T) -> Fields {
        let v = value.to_string();
        self.raw(name, &v)
    }
    pub(crate) fn opt_number<T: std::fmt::Display>(self, name: &str, value: Option<T>) -> Fields {
        match value {
            Some(v) => self.number(name, v),
            None => self,
        }
    }
    /// `true` when set; nothing otherwise.
    pub(crate) fn flag(self, name: &str, value: bool) -> Fields {
        if value {
            self.raw(name, "true")
        } else {
            self
        }
    }
    pub(crate) fn texts<S: AsRef<str>>(self, name: &str, values: &[S]) -> Fields {
        let list: Vec<String> = values.iter().map(|v| json::quote(v.as_ref())).collect();
        self.raw(name, &format!("[{}]", list.join(",")))
    }
    pub(crate) fn done(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

impl Request {
    /// The request an answer (or a part of one) holds: `{"operation",
    /// "target"?, "body", "item"?}`, its body as written. An answer that
    /// is an error is that error.
    pub(crate) fn from_raw(text: &str) -> Result<Request, Error> {
        let members = json::members_raw(text).map_err(Error::unreadable)?;
        let mut r = Request { operation: String::new(), target: String::new(),
                              body: String::new(), item: None };
        for (name, raw) in members {
            let parsed = || json::parse(raw).map_err(Error::unreadable);
            match name.as_str() {
                "error" => return Err(Error::from_answer(&json::parse(text).map_err(Error::unreadable)?)),
                "operation" => r.operation = parsed()?.as_str().unwrap_or("").to_string(),
                "target" => r.target = parsed()?.as_str().unwrap_or("").to_string(),
                "body" => r.body = raw.to_string(),
                "item" => r.item = Some(parsed()?),
                _ => {}
            }
        }
        // a migration plan's steps name the operation alone
        if r.target.is_empty() && !r.operation.is_empty() {
            r.target = format!("DynamoDB_20120810.{}", r.operation);
        }
        Ok(r)
    }
}

/// An answer's text read twice: as values, and its members' exact text
/// (for the request bodies inside). An error answer is its error.
pub(crate) struct Answer<'a> {
    pub(crate) value: Value,
    raw: Vec<(String, &'a str)>,
}

impl<'a> Answer<'a> {
    pub(crate) fn read(text: &'a str) -> Result<Answer<'a>, Error> {
        let value = json::parse(text).map_err(Error::unreadable)?;
        if value.get("error").is_some() {
            return Err(Error::from_answer(&value));
        }
        let raw = json::members_raw(text).map_err(Error::unreadable)?;
        Ok(Answer { value, raw })
    }
    /// Member `name`'s exact text.
    pub(crate) fn raw(&self, name: &str) -> Option<&'a str> {
        self.raw.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
    /// The requests of the array member `name`, bodies as written.
    pub(crate) fn requests(&self, name: &str) -> Result<Vec<Request>, Error> {
        match self.raw(name) {
            Some(raw) => json::elements_raw(raw).map_err(Error::unreadable)?
                .into_iter().map(Request::from_raw).collect(),
            None => Ok(Vec::new()),
        }
    }
}

/// Member `name` of `v` as text ("" when absent).
pub(crate) fn text(v: &Value, name: &str) -> String {
    v.get(name).and_then(Value::as_str).unwrap_or("").to_string()
}

pub(crate) fn opt_text(v: &Value, name: &str) -> Option<String> {
    v.get(name).and_then(Value::as_str).map(str::to_string)
}

/// Member `name` of `v` as a count (0 when absent).
pub(crate) fn count(v: &Value, name: &str) -> u64 {
    v.get(name).and_then(Value::as_number).and_then(|n| n.parse().ok()).unwrap_or(0)
}

pub(crate) fn texts(v: &Value, name: &str) -> Vec<String> {
    v.get(name).and_then(Value::as_array).unwrap_or(&[])
        .iter().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

pub(crate) fn indices(v: &Value, name: &str) -> Vec<usize> {
    v.get(name).and_then(Value::as_array).unwrap_or(&[])
        .iter().filter_map(|n| n.as_number().and_then(|n| n.parse().ok())).collect()
}
