// Scans, hydration, a migration and time to live on DynamoDB Local from
// Rust: ddbst's bodies sent by curl, signed by libcurl's own SigV4
// (--aws-sigv4, as tests/data/responses/capture.sh sends them): the crate
// takes nothing but the standard library. Run under scripts/dynamodb-local
// (bindings/test rust), which sets DDBST_ENDPOINT.

use ddbst::{json, HydrateOptions, Migration, Old, PageOptions, Request, ScanOptions, Session, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const KEYS: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn path(file: &str) -> String {
    root().join(file).to_str().unwrap().to_string()
}

fn env(name: &str, fallback: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| fallback.to_string())
}

/// DDBST_ENDPOINT, or None (the test then says it did not run).
fn endpoint() -> Option<String> {
    let e = std::env::var("DDBST_ENDPOINT").ok().filter(|v| !v.is_empty());
    if e.is_none() {
        eprintln!("skipped: DDBST_ENDPOINT is not set: run under scripts/dynamodb-local bindings/test rust");
    }
    e
}

/// POSTs body to target: the HTTP status and the answer.
fn send(target: &str, body: &str) -> (u32, String) {
    let mut child = Command::new("curl")
        .args(["-sS", "--aws-sigv4", &format!("aws:amz:{}:dynamodb", env("AWS_REGION", "us-east-1")),
               "--user", &format!("{}:{}", env("AWS_ACCESS_KEY_ID", "local"), env("AWS_SECRET_ACCESS_KEY", "local")),
               "-H", &format!("X-Amz-Target: {}", target), "-H", "Content-Type: application/x-amz-json-1.0",
               "--data-binary", "@-", "-w", "\n%{http_code}", &endpoint().unwrap()])
        .stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("curl");
    child.stdin.take().unwrap().write_all(body.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let cut = text.rfind('\n').expect("a status line");
    (text[cut + 1..].parse().expect("a status"), text[..cut].to_string())
}

/// Sends a request ddbst built; panics unless DynamoDB took it.
fn ok(r: &Request) -> String {
    let (status, answer) = send(&r.target, &r.body);
    assert_eq!(status, 200, "{} refused: {}\nbody: {}", r.operation, answer, r.body);
    answer
}

/// A session of `model` on a table of its own, made now and deleted when
/// dropped.
struct Table {
    db: Session,
    name: String,
}

impl Table {
    fn new(model: &str, prefix: &str) -> Table {
        let name = format!("{}-rust-{}", prefix, std::process::id());
        let db = Session::open(&format!(r#"{{"modelFile":{},"table":{},"cursorKeys":"{}"}}"#,
                                        json::quote(&path(model)), json::quote(&name), KEYS)).unwrap();
        ok(&db.build(r#"{"op":"createTable"}"#).unwrap());
        Table { db, name }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        ok(&self.db.build(r#"{"op":"deleteTable"}"#).unwrap());
    }
}

/// Every "PK SK" of the table, sorted, from a plain Scan ddbst did not build.
fn table_keys(name: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let body = match &start {
            Some(k) => format!(r#"{{"TableName":"{}","ConsistentRead":true,"ExclusiveStartKey":{}}}"#, name, k),
            None => format!(r#"{{"TableName":"{}","ConsistentRead":true}}"#, name),
        };
        let (status, answer) = send("DynamoDB_20120810.Scan", &body);
        assert_eq!(status, 200, "{}", answer);
        let a = json::parse(&answer).unwrap();
        for it in a.get("Items").and_then(Value::as_array).unwrap() {
            let s = |k: &str| it.get(k).and_then(|v| v.get("S")).and_then(Value::as_str).unwrap().to_string();
            keys.push(format!("{} {}", s("PK"), s("SK")));
        }
        match a.get("LastEvaluatedKey") {
            Some(k) => start = Some(k.to_string()),
            None => break,
        }
    }
    keys.sort();
    keys
}

fn s(v: &Value, name: &str) -> String {
    v.get(name).map(|x| x.to_string()).unwrap_or_default()
}

#[test]
fn scan_pages_segments_and_guards() {
    if endpoint().is_none() {
        return;
    }
    let t = Table::new("examples/saas/model.json", "scan");
    let db = &t.db;
    ok(&db.build(r#"{"op":"put","entity":"Organisation","values":{"orgId":"acme","name":"Acme","plan":"pro"}}"#).unwrap());
    for i in 0..6 {
        ok(&db.build(&format!(r#"{{"op":"create","entity":"User","values":{{"orgId":"acme","userId":"u{0}","email":"User{0}@Acme.example","role":"member","name":"User {0}"}}}}"#, i)).unwrap());
    }
    let mut archived = Vec::new();
    for i in 0..9 {
        let status = if i % 3 == 0 { "archived" } else { "active" };
        let values = format!(r#"{{"orgId":"acme","projectId":"p{0}","createdAt":"2026-03-0{1}T09:00:00Z","name":"Project {0}","status":"{2}"}}"#, i, i + 1, status);
        ok(&db.build(&format!(r#"{{"op":"put","entity":"Project","values":{}}}"#, values)).unwrap());
        if status == "archived" {
            archived.push(json::parse(&values).unwrap().to_string());
        }
    }
    let oracle = table_keys(&t.name);
    assert_eq!(oracle.len(), 1 + 2 * 6 + 9);

    let first = db.scan(&ScanOptions { segment: Some((2, 3)), limit: Some(4), consistent: true, ..Default::default() }).unwrap();
    assert_eq!(first.target, "DynamoDB_20120810.Scan");
    assert_eq!(first.body, format!(r#"{{"TableName":"{}","Segment":2,"TotalSegments":3,"Limit":4,"ConsistentRead":true}}"#, t.name));

    // three segments through their sealed cursors meet every item
    let mut seen = Vec::new();
    let mut guards = 0;
    for segment in 0..3 {
        let mut o = ScanOptions { segment: Some((segment, 3)), limit: Some(4), consistent: true, ..Default::default() };
        loop {
            let page = db.scan_page(&ok(&db.scan(&o).unwrap()), &o).unwrap();
            assert_eq!(page.scanned, Some(page.count));
            for e in page.items.iter().map(|e| e.as_ref().unwrap()) {
                match &e.entity {
                    None => {
                        guards += 1;
                        let text = |k| e.item.get(k).and_then(Value::as_str).unwrap().to_string();
                        seen.push(format!("{} {}", text("PK"), text("SK")));
                    }
                    Some(entity) => {
                        let k = db.call(&format!(r#"{{"op":"keys","entity":"{}","values":{}}}"#, entity, e.item)).unwrap();
                        let key = |n| k.get("keys").and_then(|k| k.get(n)).and_then(Value::as_str).unwrap().to_string();
                        seen.push(format!("{} {}", key("PK"), key("SK")));
                    }
                }
            }
            if !page.has_more {
                break;
            }
            o.cursor = page.cursor;
        }
    }
    seen.sort();
    assert_eq!(guards, 6);
    assert_eq!(seen, oracle);

    // a segment's cursor, given to another segment
    let o = ScanOptions { segment: Some((0, 3)), limit: Some(1), ..Default::default() };
    let page = db.scan_page(&ok(&db.scan(&o).unwrap()), &o).unwrap();
    let e = db.scan(&ScanOptions { segment: Some((1, 3)), cursor: page.cursor, ..Default::default() }).unwrap_err();
    assert_eq!((e.name.as_str(), e.path.as_str()), ("ECURSOR", "cursor"));

    // one entity, filtered, in the filter's JSON form
    let mut o = ScanOptions { entities: vec!["Project".into()],
                              filter_json: Some(r#"{"=":["status","archived"]}"#.into()), limit: Some(5), consistent: true,
                              ..Default::default() };
    let mut found = Vec::new();
    loop {
        let page = db.scan_page(&ok(&db.scan(&o).unwrap()), &o).unwrap();
        for e in page.items.into_iter().map(Option::unwrap) {
            assert_eq!(e.entity.as_deref(), Some("Project"));
            found.push(e.item.to_string());
        }
        if !page.has_more {
            break;
        }
        o.cursor = page.cursor;
    }
    found.sort();
    assert_eq!(found, archived);

    // the orphan-guard audit, before and after a user is deleted behind its back
    let audit = || {
        let mut pages = Vec::new();
        let mut o = ScanOptions { limit: Some(7), consistent: true, ..Default::default() };
        loop {
            let answer = ok(&db.scan(&o).unwrap());
            let page = db.scan_page(&answer, &o).unwrap();
            pages.push(answer);
            if !page.has_more {
                break;
            }
            o.cursor = page.cursor;
        }
        let mut holders: Vec<String> = Vec::new();
        loop {
            let a = db.guards(&pages, &holders).unwrap();
            match &a.request {
                Some(r) => holders.push(ok(r)),
                None => return a,
            }
        }
    };
    let a = audit();
    assert_eq!((a.guards, a.orphans.len()), (6, 0));
    let (status, _) = send("DynamoDB_20120810.DeleteItem",
                           &format!(r#"{{"TableName":"{}","Key":{{"PK":{{"S":"ORG#acme"}},"SK":{{"S":"USER#u3"}}}}}}"#, t.name));
    assert_eq!(status, 200);
    let a = audit();
    assert_eq!(a.guards, 6);
    assert_eq!(Value::Array(a.orphans).to_string(),
               r#"[{"kind":"missing","entity":"User","unique":"email","guard":"EMAIL#user3@acme.example","holder":{"PK":"ORG#acme","SK":"USER#u3"}}]"#);
}

#[test]
fn hydration_of_a_keys_only_page() {
    if endpoint().is_none() {
        return;
    }
    let t = Table::new("tests/integration/models/hydrate.json", "hydrate");
    let db = &t.db;
    const N: usize = 130;
    // member i is the (i*37 % N)th by join date
    let member = |i: usize| {
        let m = i * 37 % N;
        format!(r#"{{"orgId":"o1","memberId":"m{:03}","teamId":"t1","joinedAt":"2026-01-01T{:02}:{:02}:00Z","role":"dev","name":"Member {}","score":{}}}"#,
                i, m / 60, m % 60, i, i as i64 * 10 - 7)
    };
    let mut order = vec![0; N];
    for i in 0..N {
        ok(&db.build(&format!(r#"{{"op":"put","entity":"Member","values":{}}}"#, member(i))).unwrap());
        order[i * 37 % N] = i;
    }
    let query = |limit| ok(&db.build(&format!(r#"{{"op":"query","pattern":"membersOfTeam","values":{{"teamId":"t1"}},"limit":{}}}"#, limit)).unwrap());

    // two members: the exact BatchGetItem (keys, the entity attribute, name)
    let h = db.hydrate(&query(2), &HydrateOptions { attributes: Some(vec!["name".into()]), consistent: true, ..Default::default() }).unwrap();
    assert_eq!(h.requests.len(), 1);
    assert_eq!(h.requests[0].body, format!(r##"{{"RequestItems":{{"{}":{{"Keys":[{{"PK":{{"S":"ORG#o1"}},"SK":{{"S":"MEMBER#m000"}}}},{{"PK":{{"S":"ORG#o1"}},"SK":{{"S":"MEMBER#m123"}}}}],"ConsistentRead":true,"ProjectionExpression":"#p0, #p1, #p2, #p3","ExpressionAttributeNames":{{"#p0":"PK","#p1":"SK","#p2":"_type","#p3":"name"}}}}}}}}"##, t.name));
    assert!(h.items.is_empty() && h.missing.is_empty());

    let page = query(N);
    let gone = order[5];
    ok(&db.build(&format!(r#"{{"op":"delete","entity":"Member","values":{}}}"#, member(gone))).unwrap());
    let h = db.hydrate(&page, &HydrateOptions::default()).unwrap();
    assert_eq!(h.requests.len(), 2);
    let mut answers = Vec::new();
    for (chunk, r) in h.requests.iter().enumerate() {
        let mut next = Some(r.clone());
        while let Some(r) = next {
            let answer = ok(&r);
            next = db.page(&answer, &PageOptions { operation: Some("BatchGetItem".into()), ..Default::default() }).unwrap().followup;
            answers.push((chunk, answer));
        }
    }
    let h = db.hydrate(&page, &HydrateOptions { answers, ..Default::default() }).unwrap();
    assert_eq!((h.missing, h.pending, h.items.len()), (vec![5], vec![], N));
    for (k, &i) in order.iter().enumerate() {
        match &h.items[k] {
            None => assert_eq!(i, gone),
            Some(e) => {
                assert_eq!(e.entity.as_deref(), Some("Member"));
                assert_eq!(e.item, json::parse(&member(i)).unwrap());
            }
        }
    }
}

#[test]
fn a_migration_carried_out() {
    if endpoint().is_none() {
        return;
    }
    let t = Table::new("tests/integration/models/migrate_v1.json", "migrate");
    let v1 = &t.db;
    let v2 = Session::open(&format!(r#"{{"modelFile":{},"table":"{}","cursorKeys":"{}"}}"#,
                                    json::quote(&path("tests/integration/models/migrate_v2.json")), t.name, KEYS)).unwrap();
    ok(&v1.build(r#"{"op":"create","entity":"Customer","values":{"customerId":"c1","email":"Ann@X.com","name":"Ann","tier":"pro"}}"#).unwrap());
    ok(&v1.build(r#"{"op":"create","entity":"Customer","values":{"customerId":"c2","email":"bob@x.com","tier":"free"}}"#).unwrap());
    ok(&v1.build(r#"{"op":"put","entity":"Order","values":{"customerId":"c1","orderId":"o1","placedAt":"2026-02-01T00:00:00Z","status":"open","total":12.50}}"#).unwrap());
    let m = Migration { old: Old::file(&path("tests/integration/models/migrate_v1.json")).table(&t.name), ..Default::default() };

    let d = v2.diff(&m.old, false).unwrap();
    let classes: Vec<String> = d.changes.iter().map(|c| format!("{} {}", c.class, c.what)).collect();
    assert_eq!((d.table.as_str(), d.worst.as_str()), (t.name.as_str(), "rewrite"));
    assert_eq!(classes, ["free description", "backfill table.indexes.GSI2", "cleanup table.indexes.GSI1",
                         "backfill entities.Customer.attributes.region", "rewrite entities.Customer.key.sk",
                         "rewrite entities.Order.attributes.placedAt.precision", "rewrite entities.Order.key.sk",
                         "backfill patterns.proCustomers", "free patterns.ordersByStatus"]);
    assert_eq!(d.changes[1].update_table[0].to_string(), r#"{"addIndex":"GSI2"}"#);

    let plan = v2.migrate_plan(&m).unwrap();
    let steps: Vec<String> = plan.steps.iter().map(|s| format!("{} {}", s.step, s.index.as_deref().unwrap_or(""))).collect();
    assert_eq!(steps, ["addIndex GSI2", "scan ", "verify ", "removeIndex GSI1"]);
    assert_eq!(plan.steps[1].work.len(), 7);
    let add = plan.steps[0].request.as_ref().unwrap();
    assert_eq!(add.target, "DynamoDB_20120810.UpdateTable");
    assert_eq!(add.body, format!(r#"{{"TableName":"{}","AttributeDefinitions":[{{"AttributeName":"GSI2PK","AttributeType":"S"}},{{"AttributeName":"GSI2SK","AttributeType":"S"}}],"GlobalSecondaryIndexUpdates":[{{"Create":{{"IndexName":"GSI2","KeySchema":[{{"AttributeName":"GSI2PK","KeyType":"HASH"}},{{"AttributeName":"GSI2SK","KeyType":"RANGE"}}],"Projection":{{"ProjectionType":"ALL"}}}}}}]}}"#, t.name));
    ok(add);
    let indexes = || {
        let d = json::parse(&ok(&v2.build(r#"{"op":"describeTable"}"#).unwrap())).unwrap();
        d.get("Table").and_then(|t| t.get("GlobalSecondaryIndexes")).and_then(Value::as_array).unwrap_or(&[])
            .iter().map(|i| format!("{} {}", s(i, "IndexName"), s(i, "IndexStatus"))).collect::<Vec<_>>().join(", ")
    };
    let mut waited = 0;
    while indexes() != r#""GSI1" "ACTIVE", "GSI2" "ACTIVE""# && indexes() != r#""GSI2" "ACTIVE", "GSI1" "ACTIVE""# {
        waited += 1;
        assert!(waited < 100, "GSI2 never became ACTIVE: {}", indexes());
    }

    // a service's create during the migration, by the writer protocol
    let (create, moves) = v2.migrate_write(&m, "create", "Customer", r#"{"customerId":"c3","email":"cat@x.com","tier":"pro","name":"Cat"}"#, None).unwrap();
    assert!(moves);
    ok(&create);

    let pass = |f: &mut dyn FnMut(&str)| {
        let mut o = ScanOptions { consistent: true, limit: Some(3), ..Default::default() };
        loop {
            let answer = ok(&v2.scan(&o).unwrap());
            f(&answer);
            let page = v2.scan_page(&answer, &o).unwrap();
            if !page.has_more {
                break;
            }
            o.cursor = page.cursor;
        }
    };
    let (mut writes, mut refused) = (0, 0);
    pass(&mut |answer| {
        let step = v2.migrate_step(&m, answer).unwrap();
        for it in &step.items {
            if let Some(r) = &it.request {
                assert_eq!(it.outcome, "write");
                ok(r);
            }
        }
        writes += step.writes;
        refused += step.refused + step.foreign;
    });
    assert_eq!((writes, refused), (3, 0)); // c1, c2 and o1 move; c3 was written new
    let mut again = (0, 0, 0);
    pass(&mut |answer| {
        let step = v2.migrate_step(&m, answer).unwrap();
        again = (again.0 + step.writes, again.1 + step.skipped, again.2 + step.guards);
    });
    assert_eq!(again, (0, 4, 3));
    pass(&mut |answer| assert_eq!(v2.migrate_verify(&m, answer).unwrap(), vec![]));
    ok(plan.steps[3].request.as_ref().unwrap());
    let mut waited = 0;
    while indexes() != r#""GSI2" "ACTIVE""# {
        waited += 1;
        assert!(waited < 100, "GSI1 never went: {}", indexes());
    }

    assert_eq!(table_keys(&t.name), ["CUST#c1 ORDER#2026-02-01T00:00:00.000Z#o1", "CUST#c1 PROFILE#c1", "CUST#c2 PROFILE#c2",
                                      "CUST#c3 PROFILE#c3", "EMAIL#ann@x.com EMAIL#ann@x.com", "EMAIL#bob@x.com EMAIL#bob@x.com",
                                      "EMAIL#cat@x.com EMAIL#cat@x.com"]);
    let get = |request: &str| {
        let page = v2.page(&ok(&v2.build(request).unwrap()), &PageOptions { operation: Some("GetItem".into()), ..Default::default() }).unwrap();
        page.items[0].as_ref().unwrap().item.to_string()
    };
    assert_eq!(get(r#"{"op":"get","entity":"Customer","values":{"customerId":"c1"},"consistent":true}"#),
               r#"{"customerId":"c1","email":"Ann@X.com","name":"Ann","tier":"pro","region":"eu"}"#);
    assert_eq!(get(r#"{"op":"get","entity":"Order","values":{"customerId":"c1","orderId":"o1","placedAt":"2026-02-01T00:00:00.000Z"},"consistent":true}"#),
               r#"{"customerId":"c1","orderId":"o1","placedAt":"2026-02-01T00:00:00.000Z","status":"open","total":12.5,"version":1}"#);
}

#[test]
fn time_to_live_on_and_off() {
    if endpoint().is_none() {
        return;
    }
    let t = Table::new("examples/saas/model.json", "ttl");
    let shop = Session::open(&format!(r#"{{"modelFile":{},"table":"{}"}}"#, json::quote(&path("examples/shop/model.json")), t.name)).unwrap();
    let ttl = || {
        let (status, answer) = send("DynamoDB_20120810.DescribeTimeToLive", &format!(r#"{{"TableName":"{}"}}"#, t.name));
        assert_eq!(status, 200, "{}", answer);
        let d = json::parse(&answer).unwrap();
        let d = d.get("TimeToLiveDescription").unwrap();
        format!("{} {}", s(d, "TimeToLiveStatus"), s(d, "AttributeName"))
    };
    let on = t.db.update_time_to_live(None).unwrap();
    assert_eq!(on.body, format!(r#"{{"TableName":"{}","TimeToLiveSpecification":{{"AttributeName":"expiresAt","Enabled":true}}}}"#, t.name));
    ok(&on);
    assert_eq!(ttl(), r#""ENABLED" "expiresAt""#);
    assert_eq!(t.db.update_time_to_live(Some("expiresAt")).unwrap_err().path, "disable");
    let off = shop.update_time_to_live(Some("expiresAt")).unwrap();
    assert_eq!(off.body, format!(r#"{{"TableName":"{}","TimeToLiveSpecification":{{"AttributeName":"expiresAt","Enabled":false}}}}"#, t.name));
    ok(&off);
    assert_eq!(ttl(), r#""DISABLED" "#);
}
