//! A small JSON reader for ddbst's answers: numbers are kept as their text
//! (`Value::Number("12345678901234567890.123456789")`), never a float, so
//! nothing DynamoDB stored loses a digit. Objects keep their members'
//! order. Nesting is limited (ddbst's own answers nest at most 32 levels of
//! item values plus a few of their own).

use std::fmt;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// The number's text, exactly as written.
    Number(String),
    String(String),
    Array(Vec<Value>),
    /// Members in the order of the text.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// Member `name` of an object.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    /// A number's text.
    pub fn as_number(&self) -> Option<&str> {
        match self {
            Value::Number(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(|s| s.parse().ok())
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// The text does not parse as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub offset: usize,
    pub what: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON: {} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for ParseError {}

const MAX_DEPTH: usize = 128;

/// Parses one JSON document.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser { s: text.as_bytes(), i: 0 };
    let v = p.value(0)?;
    p.space();
    if p.i != p.s.len() {
        return Err(p.fail("trailing text"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn fail(&self, what: &'static str) -> ParseError {
        ParseError { offset: self.i, what }
    }
    fn space(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }
    fn literal(&mut self, word: &str, v: Value) -> Result<Value, ParseError> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.fail("unexpected character"))
        }
    }
    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.fail("nested too deep"));
        }
        self.space();
        match self.s.get(self.i) {
            None => Err(self.fail("unexpected end")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(_) => self.number(),
        }
    }
    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        let digits = |p: &mut Parser| {
            let from = p.i;
            while p.i < p.s.len() && p.s[p.i].is_ascii_digit() {
                p.i += 1;
            }
            p.i > from
        };
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        if !digits(self) {
            return Err(self.fail("expected a value"));
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !digits(self) {
                return Err(self.fail("expected digits after '.'"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.fail("expected an exponent"));
            }
        }
        // ASCII only, so the slice is valid UTF-8
        Ok(Value::Number(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
    }
    fn hex4(&mut self) -> Result<u32, ParseError> {
        let h = self.s.get(self.i..self.i + 4).ok_or_else(|| self.fail("short \\u escape"))?;
        let h = std::str::from_utf8(h).map_err(|_| self.fail("bad \\u escape"))?;
        let v = u32::from_str_radix(h, 16).map_err(|_| self.fail("bad \\u escape"))?;
        self.i += 4;
        Ok(v)
    }
    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1; // the quote
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.i).ok_or_else(|| self.fail("unterminated string"))?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or_else(|| self.fail("unterminated string"))?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let low = self.hex4()?;
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                            }
                            char::from_u32(cp).ok_or_else(|| self.fail("bad \\u escape"))?
                        }
                        _ => return Err(self.fail("bad escape")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(self.fail("control character in a string")),
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.fail("not UTF-8"))
    }
    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.i += 1;
        let mut out = Vec::new();
        self.space();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Value::Array(out));
        }
        loop {
            out.push(self.value(depth + 1)?);
            self.space();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(out));
                }
                _ => return Err(self.fail("expected ',' or ']'")),
            }
        }
    }
    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.i += 1;
        let mut out = Vec::new();
        self.space();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Value::Object(out));
        }
        loop {
            self.space();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.fail("expected a member name"));
            }
            let key = self.string()?;
            self.space();
            if self.s.get(self.i) != Some(&b':') {
                return Err(self.fail("expected ':'"));
            }
            self.i += 1;
            out.push((key, self.value(depth + 1)?));
            self.space();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(out));
                }
                _ => return Err(self.fail("expected ',' or '}'")),
            }
        }
    }
}

/// `s` as a JSON string literal, for building requests.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The members of a top-level object with each value's exact text: a
/// request body is taken from an answer byte for byte this way.
pub fn members_raw(text: &str) -> Result<Vec<(String, &str)>, ParseError> {
    let mut p = Parser { s: text.as_bytes(), i: 0 };
    p.space();
    if p.s.get(p.i) != Some(&b'{') {
        return Err(p.fail("expected an object"));
    }
    p.i += 1;
    let mut out = Vec::new();
    p.space();
    if p.s.get(p.i) == Some(&b'}') {
        return Ok(out);
    }
    loop {
        p.space();
        if p.s.get(p.i) != Some(&b'"') {
            return Err(p.fail("expected a member name"));
        }
        let key = p.string()?;
        p.space();
        if p.s.get(p.i) != Some(&b':') {
            return Err(p.fail("expected ':'"));
        }
        p.i += 1;
        p.space();
        let start = p.i;
        p.value(1)?;
        // value() stops right after the value: a char boundary
        out.push((key, &text[start..p.i]));
        p.space();
        match p.s.get(p.i) {
            Some(b',') => p.i += 1,
            Some(b'}') => return Ok(out),
            _ => return Err(p.fail("expected ',' or '}'")),
        }
    }
}

/// The elements of a top-level array with each one's exact text, as
/// `members_raw` gives an object's members.
pub fn elements_raw(text: &str) -> Result<Vec<&str>, ParseError> {
    let mut p = Parser { s: text.as_bytes(), i: 0 };
    p.space();
    if p.s.get(p.i) != Some(&b'[') {
        return Err(p.fail("expected an array"));
    }
    p.i += 1;
    let mut out = Vec::new();
    p.space();
    if p.s.get(p.i) == Some(&b']') {
        return Ok(out);
    }
    loop {
        p.space();
        let start = p.i;
        p.value(1)?;
        out.push(&text[start..p.i]);
        p.space();
        match p.s.get(p.i) {
            Some(b',') => p.i += 1,
            Some(b']') => return Ok(out),
            _ => return Err(p.fail("expected ',' or ']'")),
        }
    }
}

/// JSON text: numbers as their text, strings quoted (`value.to_string()`
/// puts an item read back into a request).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{}", b),
            Value::Number(n) => f.write_str(n),
            Value::String(s) => f.write_str(&quote(s)),
            Value::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}", v)?;
                }
                f.write_str("]")
            }
            Value::Object(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}:{}", quote(k), v)?;
                }
                f.write_str("}")
            }
        }
    }
}
