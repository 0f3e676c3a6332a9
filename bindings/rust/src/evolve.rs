//! Model evolution (docs/evolution.md): the session holds the new model;
//! `Old` names the model the table was written with. And time to live,
//! which a migration's notes leave to the caller.

use crate::json::Value;
use crate::request::{count, opt_text, text, texts, Answer, Fields};
use crate::{Error, Request, Session};

/// The older model: its file or its JSON text, and its table name in
/// force when it differs from the model's (as the session's `table`).
#[derive(Clone, Debug, Default)]
pub struct Old {
    pub file: Option<String>,
    pub model: Option<String>,
    pub table: Option<String>,
}

impl Old {
    /// The model in file `path`.
    pub fn file(path: &str) -> Old {
        Old { file: Some(path.to_string()), ..Old::default() }
    }
    /// The model's JSON text.
    pub fn model(text: &str) -> Old {
        Old { model: Some(text.to_string()), ..Old::default() }
    }
    /// Its table name in force.
    pub fn table(mut self, name: &str) -> Old {
        self.table = Some(name.to_string());
        self
    }
    fn fields(&self, op: &str) -> Fields {
        Fields::new(op).opt_text("oldFile", &self.file).opt_text("old", &self.model)
            .opt_text("oldTable", &self.table)
    }
}

/// One difference of two models and what it does to the items stored:
/// `class` "free", "backfill", "rewrite", "cleanup", "unsafe" or
/// "impossible"; `what` the path in the model; `check`, for an unsafe
/// change, what to check first; `update_table` the table's steps
/// (`{"addIndex":"GSI2"}`), in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub class: String,
    pub what: String,
    pub reason: String,
    pub entities: Vec<String>,
    pub patterns: Vec<String>,
    pub check: Option<String>,
    pub update_table: Vec<Value>,
}

fn changes(v: Option<&Value>) -> Vec<Change> {
    v.and_then(Value::as_array).unwrap_or(&[]).iter().map(|c| Change {
        class: text(c, "class"),
        what: text(c, "what"),
        reason: text(c, "reason"),
        entities: texts(c, "entities"),
        patterns: texts(c, "patterns"),
        check: opt_text(c, "check"),
        update_table: c.get("updateTable").and_then(Value::as_array).unwrap_or(&[]).to_vec(),
    }).collect()
}

/// Every change from the old model to the session's, and the worst class.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    pub table: String,
    pub changes: Vec<Change>,
    pub worst: String,
}

/// A migration from `old` to the session's model. `unsafe_changes`
/// accepts the unsafe changes: every item is then checked against the new
/// model as it is migrated, and one it refuses is reported, never written.
#[derive(Clone, Debug, Default)]
pub struct Migration {
    pub old: Old,
    pub unsafe_changes: bool,
}

impl Migration {
    fn fields(&self, op: &str) -> Fields {
        self.old.fields(op).flag("unsafe", self.unsafe_changes)
    }
}

/// One step of a plan: `step` "addIndex" (send `request`, then wait as
/// `then` says), "scan" (the pass: `migrate_step` on every page of a Scan
/// of the whole table; `work` is what it does), "verify" (`migrate_verify`
/// on every page of a second Scan) or "removeIndex" (send `request`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStep {
    pub step: String,
    pub index: Option<String>,
    pub request: Option<Request>,
    pub then: Option<String>,
    pub work: Vec<Change>,
}

/// The steps carrying the table from the old model to the new, in order;
/// `notes` are what is left to the caller (time to live).
#[derive(Clone, Debug, PartialEq)]
pub struct MigrationPlan {
    pub table: String,
    pub worst: String,
    pub steps: Vec<PlanStep>,
    pub notes: Vec<String>,
}

/// One item's outcome in a page of the pass: "write" (send `request`),
/// "skip" (in the new model's shape already), "guard" (a unique guard: it
/// moves with its holder), "refused" or "foreign" (see `report`:
/// `{"key","entity","reason"}`). `index` is its place in the page.
#[derive(Clone, Debug, PartialEq)]
pub struct MigrationItem {
    pub outcome: String,
    pub index: usize,
    pub request: Option<Request>,
    pub report: Option<Value>,
}

/// What one page of the pass needs, and the count of each outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct MigrationStep {
    pub items: Vec<MigrationItem>,
    pub writes: u64,
    pub skipped: u64,
    pub guards: u64,
    pub refused: u64,
    pub foreign: u64,
}

/// An item not (yet) in the new model's shape: its key (attribute name to
/// text), entity, and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub key: Value,
    pub entity: String,
    pub problem: String,
}

impl Session {
    /// Compares the old model with the session's. `table_renamed`: the
    /// table's new name is meant (its items were copied there).
    pub fn diff(&self, old: &Old, table_renamed: bool) -> Result<Diff, Error> {
        let text_ = self.call_text(&old.fields("diff").flag("tableRenamed", table_renamed).done());
        let v = Answer::read(&text_)?.value;
        Ok(Diff { table: text(&v, "table"), changes: changes(v.get("changes")), worst: text(&v, "worst") })
    }

    /// The diff as `ddbst diff` prints it, and the worst class.
    pub fn diff_text(&self, old: &Old, table_renamed: bool) -> Result<(String, String), Error> {
        let v = self.call(&old.fields("diff").text("format", "text")
            .flag("tableRenamed", table_renamed).done())?;
        Ok((text(&v, "text"), text(&v, "worst")))
    }

    /// Plans the migration. An impossible change, or an unsafe one without
    /// `unsafe_changes`, is the error.
    pub fn migrate_plan(&self, m: &Migration) -> Result<MigrationPlan, Error> {
        let text_ = self.call_text(&m.fields("migratePlan").done());
        let a = Answer::read(&text_)?;
        let mut steps = Vec::new();
        if let Some(raw) = a.raw("steps") {
            for step in crate::json::elements_raw(raw).map_err(Error::unreadable)? {
                let s = Answer::read(step)?;
                steps.push(PlanStep {
                    step: text(&s.value, "step"),
                    index: opt_text(&s.value, "index"),
                    request: match s.raw("request") {
                        Some(r) => Some(Request::from_raw(r)?),
                        None => None,
                    },
                    then: opt_text(&s.value, "then"),
                    work: changes(s.value.get("work")),
                });
            }
        }
        Ok(MigrationPlan { table: text(&a.value, "table"), worst: text(&a.value, "worst"),
                           steps, notes: texts(&a.value, "notes") })
    }

    /// The plan as `ddbst migrate plan` prints it.
    pub fn migrate_plan_text(&self, m: &Migration) -> Result<String, Error> {
        Ok(text(&self.call(&m.fields("migratePlan").text("format", "text").done())?, "text"))
    }

    /// One page of a Scan of the whole table (no index, filter or
    /// projection; any segment) into each item's write. A write DynamoDB
    /// refuses (the item changed since the Scan) is redone by scanning its
    /// page again.
    pub fn migrate_step(&self, m: &Migration, response: &str) -> Result<MigrationStep, Error> {
        let text_ = self.call_text(&m.fields("migrateStep").text("response", response).done());
        let a = Answer::read(&text_)?;
        let mut items = Vec::new();
        if let Some(raw) = a.raw("items") {
            for item in crate::json::elements_raw(raw).map_err(Error::unreadable)? {
                let it = Answer::read(item)?;
                let outcome = text(&it.value, "outcome");
                items.push(MigrationItem {
                    request: if outcome == "write" { Some(Request::from_raw(item)?) } else { None },
                    outcome,
                    index: count(&it.value, "index") as usize,
                    report: it.value.get("report").cloned(),
                });
            }
        }
        let v = &a.value;
        Ok(MigrationStep { items, writes: count(v, "writes"), skipped: count(v, "skipped"),
                           guards: count(v, "guards"), refused: count(v, "refused"),
                           foreign: count(v, "foreign") })
    }

    /// Checks every item of a Scan page against the new model; a verify
    /// pass over the whole table with no problem ends the migration.
    pub fn migrate_verify(&self, m: &Migration, response: &str) -> Result<Vec<Problem>, Error> {
        let v = self.call(&m.fields("migrateVerify").text("response", response).done())?;
        Ok(v.get("problems").and_then(Value::as_array).unwrap_or(&[]).iter().map(|p| Problem {
            key: p.get("key").cloned().unwrap_or(Value::Null),
            entity: text(p, "entity"),
            problem: text(p, "problem"),
        }).collect())
    }

    /// A service's write during the migration, by the writer protocol of
    /// docs/evolution.md: `write` "create", "put" or "delete" of `entity`'s
    /// item `values` (JSON text); `now` the clock in microseconds. Also
    /// whether the entity's primary key moves.
    pub fn migrate_write(&self, m: &Migration, write: &str, entity: &str, values: &str,
                         now: Option<i64>) -> Result<(Request, bool), Error> {
        let text_ = self.call_text(&m.fields("migrateWrite").text("write", write)
            .text("entity", entity).raw("values", values).opt_number("now", now).done());
        let a = Answer::read(&text_)?;
        let moves = a.value.get("moves").and_then(Value::as_bool).unwrap_or(false);
        Ok((Request::from_raw(&text_)?, moves))
    }

    /// The UpdateTimeToLive request: expiry enabled on the model's
    /// `ttlAttribute`, or with `disable`, turned off on that attribute,
    /// which the model no longer declares.
    pub fn update_time_to_live(&self, disable: Option<&str>) -> Result<Request, Error> {
        let mut f = Fields::new("updateTimeToLive");
        if let Some(attribute) = disable {
            f = f.text("disable", attribute);
        }
        self.build(&f.done())
    }
}
