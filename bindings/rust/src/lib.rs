//! ddbst for Rust: libddbst's JSON entry (`ddbst_json_open`, `_call`,
//! `_free`, `_close` in include/ddbst.h) behind a safe `Session`, with the
//! standard library alone. ddbst builds every DynamoDB request body and
//! reads every answer for one model; send the bodies with your own HTTP
//! client and signer to the `X-Amz-Target` each `Request` names.
//!
//! Requests are JSON text (docs/ffi.md lists them); answers are read by
//! [`json::parse`], which keeps numbers as their text, and request bodies
//! are handed over byte for byte as ddbst wrote them.
//!
//! ```no_run
//! let db = ddbst::Session::open_file("examples/saas/model.json", None).unwrap();
//! let r = db.build(r#"{"op":"get","entity":"User","values":{"orgId":"1","userId":"2"}}"#).unwrap();
//! assert_eq!(r.target, "DynamoDB_20120810.GetItem");
//! ```

mod evolve;
pub mod json;
mod read;
mod request;

use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_void};
use std::ptr::{self, NonNull};

pub use evolve::{Change, Diff, Migration, MigrationItem, MigrationPlan, MigrationStep, Old, PlanStep, Problem};
pub use json::Value;
pub use read::{GuardAudit, HydrateOptions, Hydration, Page, PageItem, PageOptions, ScanOptions};

extern "C" {
    fn ddbst_version() -> *const c_char;
    fn ddbst_json_open(config: *const c_char, len: usize, alloc: *const c_void,
                       error: *mut *mut c_char) -> *mut c_void;
    fn ddbst_json_call(session: *const c_void, request: *const c_char, len: usize,
                       answer_len: *mut usize) -> *mut c_char;
    fn ddbst_json_free(answer: *mut c_char);
    fn ddbst_json_close(session: *mut c_void);
}

/// The library's version ("0.2.0").
pub fn version() -> &'static str {
    // a static, NUL-terminated ASCII string
    unsafe { CStr::from_ptr(ddbst_version()) }.to_str().unwrap_or("")
}

/// An error answer: `code` is the C API's negative `DDBST_E*` code, `name`
/// its name ("EVALUE"), `path` what was wrong ("facet orgId", "cursor",
/// "values.orgId"), `message` ddbst's words. `dynamodb` is what DynamoDB
/// said when the answer was its error (a `page` of a refused request);
/// `errors` lists every problem of a model that does not load.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub code: i32,
    pub name: String,
    pub path: String,
    pub message: String,
    pub dynamodb: Option<Value>,
    pub errors: Vec<Error>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    fn from_value(e: &Value) -> Error {
        let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        Error {
            code: e.get("code").and_then(Value::as_i64).unwrap_or(0) as i32,
            name: text("name"),
            path: text("path"),
            message: text("message"),
            dynamodb: None,
            errors: Vec::new(),
        }
    }

    fn from_answer(answer: &Value) -> Error {
        let mut e = Error::from_value(answer.get("error").unwrap_or(&Value::Null));
        e.dynamodb = answer.get("dynamodb").cloned();
        if let Some(all) = answer.get("errors").and_then(Value::as_array) {
            e.errors = all.iter().map(Error::from_value).collect();
        }
        e
    }

    fn unreadable(err: json::ParseError) -> Error {
        Error { code: -3, name: "ESYNTAX".into(), path: String::new(),
                message: format!("an answer that does not parse: {}", err),
                dynamodb: None, errors: Vec::new() }
    }
}

/// A request body and where it goes: POST `body` with the headers
/// `X-Amz-Target: <target>` and `Content-Type: application/x-amz-json-1.0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub operation: String,
    pub target: String,
    /// The body, exactly as ddbst wrote it.
    pub body: String,
    /// What a put or create writes (defaults, generated ids filled).
    pub item: Option<Value>,
}

/// An open model: any number of threads may call one session at once
/// (`Session` is `Send + Sync`); it is closed when dropped, which Rust makes
/// sure happens after every call has returned.
pub struct Session {
    raw: NonNull<c_void>,
}

// The C side: "An open session is read-only: any number of threads may
// call ddbst_json_call on it at once".
unsafe impl Send for Session {}
unsafe impl Sync for Session {}

/// Takes an answer: its text, then frees it.
unsafe fn take(answer: *mut c_char, len: Option<usize>) -> String {
    let text = match len {
        Some(n) => String::from_utf8_lossy(std::slice::from_raw_parts(answer as *const u8, n)).into_owned(),
        None => CStr::from_ptr(answer).to_string_lossy().into_owned(),
    };
    ddbst_json_free(answer);
    text
}

impl Session {
    /// Opens a session from its configuration, JSON text:
    /// `{"modelFile": "...", "cursorKeys": "hex64,...", "table": "..."}`.
    pub fn open(config: &str) -> Result<Session, Error> {
        let mut error: *mut c_char = ptr::null_mut();
        let raw = unsafe {
            ddbst_json_open(config.as_ptr().cast(), config.len(), ptr::null(), &mut error)
        };
        match NonNull::new(raw) {
            Some(raw) => Ok(Session { raw }),
            None if error.is_null() => Err(Error {
                code: -2, name: "ENOMEM".into(), path: String::new(),
                message: "ddbst_json_open failed and said nothing".into(),
                dynamodb: None, errors: Vec::new() }),
            None => {
                let text = unsafe { take(error, None) };
                let answer = json::parse(&text).map_err(Error::unreadable)?;
                Err(Error::from_answer(&answer))
            }
        }
    }

    /// Opens the model file, with cursor sealing keys if given.
    pub fn open_file(model_file: &str, cursor_keys: Option<&str>) -> Result<Session, Error> {
        let mut config = format!("{{\"modelFile\":{}", json::quote(model_file));
        if let Some(keys) = cursor_keys {
            config.push_str(&format!(",\"cursorKeys\":{}", json::quote(keys)));
        }
        config.push('}');
        Session::open(&config)
    }

    /// The answer's text to one request, error answers included.
    pub fn call_text(&self, request: &str) -> String {
        let mut len = 0usize;
        unsafe {
            let answer = ddbst_json_call(self.raw.as_ptr(), request.as_ptr().cast(),
                                         request.len(), &mut len);
            // never NULL: at worst a static ENOMEM answer
            take(answer, Some(len))
        }
    }

    /// Runs one request; its answer, or the error it carries.
    pub fn call(&self, request: &str) -> Result<Value, Error> {
        let answer = json::parse(&self.call_text(request)).map_err(Error::unreadable)?;
        if answer.get("error").is_some() {
            return Err(Error::from_answer(&answer));
        }
        Ok(answer)
    }

    /// Runs a request that builds one body ("get", "put", "create",
    /// "update", "delete", "query", "transact", "createTable"); the body is
    /// ddbst's own text.
    pub fn build(&self, request: &str) -> Result<Request, Error> {
        Request::from_raw(&self.call_text(request))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        unsafe { ddbst_json_close(self.raw.as_ptr()) }
    }
}
