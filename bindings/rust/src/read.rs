//! Answers read back (pages, scans, the guard audit, hydration), with the
//! requests they ask for next.

use crate::json::{self, Value};
use crate::request::{count, indices, opt_text, Answer, Fields};
use crate::{Error, Request, Session};

/// One item read back: its entity (`None`: of no entity of the model, as
/// a scan meets unique guards and foreign items, every attribute as
/// stored) and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct PageItem {
    pub entity: Option<String>,
    pub item: Value,
}

/// DynamoDB's answer read back: the items (`None`: an empty
/// TransactGetItems slot, or an item hydration found gone), `has_more`
/// and the sealed `cursor` of the next page, `matched` and `scanned` (the
/// answer's Count and ScannedCount where it gave them), and a batch's
/// `followup` (its unprocessed part, to send again).
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub items: Vec<Option<PageItem>>,
    pub count: u64,
    pub has_more: bool,
    pub matched: Option<u64>,
    pub scanned: Option<u64>,
    pub cursor: Option<String>,
    pub followup: Option<Request>,
}

fn items(v: Option<&Value>) -> Vec<Option<PageItem>> {
    v.and_then(Value::as_array).unwrap_or(&[]).iter().map(|e| {
        if e.is_null() {
            return None;
        }
        Some(PageItem { entity: opt_text(e, "entity"),
                        item: e.get("item").cloned().unwrap_or(Value::Null) })
    }).collect()
}

fn page(a: &Answer) -> Result<Page, Error> {
    let v = &a.value;
    let opt_count = |name| v.get(name).map(|_| count(v, name));
    Ok(Page {
        items: items(v.get("items")),
        count: count(v, "count"),
        has_more: v.get("hasMore").and_then(Value::as_bool).unwrap_or(false),
        matched: opt_count("matched"),
        scanned: opt_count("scanned"),
        cursor: opt_text(v, "cursor"),
        followup: match a.raw("followup") {
            Some(raw) => Some(Request::from_raw(raw)?),
            None => None,
        },
    })
}

/// What answered a `page` call: `operation` ("Query" when `None`,
/// "GetItem", "BatchGetItem", "BatchWriteItem", "TransactGetItems", a
/// write's), and for a query's next cursor its `pattern` and `values`
/// (JSON text).
#[derive(Clone, Debug, Default)]
pub struct PageOptions {
    pub operation: Option<String>,
    pub pattern: Option<String>,
    pub values: Option<String>,
    /// A write's entity (its UPDATED_* values hold no keys).
    pub entity: Option<String>,
    /// The clock, microseconds since the epoch.
    pub now: Option<i64>,
}

/// What a scan reads (docs/scans.md). The same options, less `limit`,
/// `cursor`, `consistent` and `select`, read its answers back
/// (`scan_page`): the cursor is bound to them.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// Scans this global or local index instead of the table.
    pub index: Option<String>,
    /// Keeps the items of these entities only.
    pub entities: Vec<String>,
    /// One entity's filter (give it alone in `entities`), the text form of
    /// docs/conditions.md ("status = :s")...
    pub filter: Option<String>,
    /// ...or its JSON form, as JSON text.
    pub filter_json: Option<String>,
    /// The filter's parameters' values, JSON text: `{"s":"archived"}`.
    pub params: Option<String>,
    pub project: Vec<String>,
    /// `(segment, total_segments)`: a parallel scan's segment.
    pub segment: Option<(u32, u32)>,
    pub limit: Option<u32>,
    /// The page before's `Page::cursor`.
    pub cursor: Option<String>,
    pub consistent: bool,
    /// "COUNT": the number of items (`Page::matched`), not the items.
    pub select: Option<String>,
    /// The clock for a cursor's maximum age, microseconds since the epoch.
    pub now: Option<i64>,
}

impl ScanOptions {
    fn fields(&self, op: &str, answer: bool) -> Fields {
        let mut f = Fields::new(op).opt_text("index", &self.index);
        if !self.entities.is_empty() {
            f = f.texts("entities", &self.entities);
        }
        f = f.opt_text("filter", &self.filter).opt_raw("filter", &self.filter_json)
            .opt_raw("params", &self.params);
        if !self.project.is_empty() {
            f = f.texts("project", &self.project);
        }
        if let Some((segment, total)) = self.segment {
            f = f.number("segment", segment).number("totalSegments", total);
        }
        f = f.opt_number("now", self.now);
        if answer {
            return f;
        }
        f.opt_number("limit", self.limit).opt_text("cursor", &self.cursor)
            .flag("consistent", self.consistent).opt_text("select", &self.select)
    }
}

/// One round of the orphan-guard audit: `request` to send next (then call
/// again with its answer added to the holders), or, when `None`, the
/// number of `guards` met and the `orphans` among them
/// (`{"kind","entity","unique","guard","holder"}`, docs/scans.md).
#[derive(Clone, Debug, PartialEq)]
pub struct GuardAudit {
    pub request: Option<Request>,
    pub guards: u64,
    pub orphans: Vec<Value>,
}

/// How to hydrate: only these `attributes` (with the keys; `None`: the
/// whole items), `consistent` reads, and every answer so far to the
/// hydration's requests: `(chunk, answer text)`, the answers to request
/// `chunk` and to its follow-ups.
#[derive(Clone, Debug, Default)]
pub struct HydrateOptions {
    pub attributes: Option<Vec<String>>,
    pub consistent: bool,
    pub answers: Vec<(usize, String)>,
}

/// A projected index's page made whole: `requests` are the BatchGetItem
/// bodies of its full items (100 keys each). Given answers, `items` are
/// the full items in the page's order (`None`: not there any more),
/// `missing` the indices of those deleted since the query, `pending` of
/// those not answered yet; without answers the three are empty.
#[derive(Clone, Debug, PartialEq)]
pub struct Hydration {
    pub requests: Vec<Request>,
    pub items: Vec<Option<PageItem>>,
    pub missing: Vec<usize>,
    pub pending: Vec<usize>,
}

impl Session {
    /// DynamoDB's answer (the response body, as it came) read back.
    /// DynamoDB's error answer is an `Error` whose `dynamodb` says what it
    /// said.
    pub fn page(&self, response: &str, options: &PageOptions) -> Result<Page, Error> {
        let request = Fields::new("page").text("response", response)
            .opt_text("operation", &options.operation).opt_text("pattern", &options.pattern)
            .opt_raw("values", &options.values).opt_text("entity", &options.entity)
            .opt_number("now", options.now).done();
        page(&Answer::read(&self.call_text(&request))?)
    }

    /// The Scan request.
    pub fn scan(&self, options: &ScanOptions) -> Result<Request, Error> {
        self.build(&options.fields("scan", false).done())
    }

    /// A Scan's answer, given the scan's own options; its cursor continues
    /// this scan's segment.
    pub fn scan_page(&self, response: &str, options: &ScanOptions) -> Result<Page, Error> {
        let request = options.fields("scanPage", true).text("response", response).done();
        page(&Answer::read(&self.call_text(&request))?)
    }

    /// Audits the unique guards of the Scan answers `pages`, given the
    /// answers to the requests it gave so far (`holders`, in order).
    pub fn guards<S: AsRef<str>>(&self, pages: &[S], holders: &[S]) -> Result<GuardAudit, Error> {
        let mut f = Fields::new("guards").texts("pages", pages);
        if !holders.is_empty() {
            f = f.texts("holders", holders);
        }
        let text = self.call_text(&f.done());
        let a = Answer::read(&text)?;
        Ok(GuardAudit {
            request: match a.raw("request") {
                Some(raw) => Some(Request::from_raw(raw)?),
                None => None,
            },
            guards: count(&a.value, "guards"),
            orphans: a.value.get("orphans").and_then(Value::as_array).unwrap_or(&[]).to_vec(),
        })
    }

    /// A Query answer of a KEYS_ONLY or INCLUDE index into the requests of
    /// its full items, and given their answers, those items.
    pub fn hydrate(&self, response: &str, options: &HydrateOptions) -> Result<Hydration, Error> {
        let mut f = Fields::new("hydrate").text("response", response)
            .flag("consistent", options.consistent);
        if let Some(names) = &options.attributes {
            f = f.texts("attributes", names);
        }
        if !options.answers.is_empty() {
            let answers: Vec<String> = options.answers.iter().map(|(chunk, answer)| {
                format!("{{\"chunk\":{},\"response\":{}}}", chunk, json::quote(answer))
            }).collect();
            f = f.raw("answers", &format!("[{}]", answers.join(",")));
        }
        let text = self.call_text(&f.done());
        let a = Answer::read(&text)?;
        Ok(Hydration {
            requests: a.requests("requests")?,
            items: items(a.value.get("items")),
            missing: indices(&a.value, "missing"),
            pending: indices(&a.value, "pending"),
        })
    }
}

