// The Rust binding on the SaaS and shop models: request bodies byte for
// byte (docs/ffi.md's worked examples), pages and errors DynamoDB Local
// answered (tests/data/responses), exact numbers, typed errors, threads.

use ddbst::{json, Session, Value};
use std::sync::Arc;

const KEYS: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn open(model: &str) -> Session {
    let file = root().join("examples").join(model).join("model.json");
    Session::open_file(file.to_str().unwrap(), Some(KEYS)).expect("open")
}

fn response(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/data/responses").join(name)).unwrap()
}

/// A request with a response text inside, as JSON.
fn with_response(head: &str, text: &str) -> String {
    format!("{},\"response\":{}}}", head, json::quote(text))
}

#[test]
fn bodies_exactly() {
    let db = open("saas");
    let r = db.build(r##"{"op":"create","entity":"Project","values":{"orgId":"123","projectId":"p1","name":"Website","status":"active"},"now":1773478800000000}"##).unwrap();
    assert_eq!(r.target, "DynamoDB_20120810.PutItem");
    assert_eq!(r.body, r##"{"TableName":"saas-api-dev","Item":{"PK":{"S":"ORG#123"},"SK":{"S":"PROJECT#2026-03-14T09:00:00Z#p1"},"GSI2PK":{"S":"STATUS#active"},"GSI2SK":{"S":"2026-03-14T09:00:00Z"},"_type":{"S":"Project"},"orgId":{"S":"123"},"projectId":{"S":"p1"},"createdAt":{"S":"2026-03-14T09:00:00Z"},"name":{"S":"Website"},"status":{"S":"active"}},"ConditionExpression":"attribute_not_exists(#n0)","ExpressionAttributeNames":{"#n0":"PK"}}"##);
    assert_eq!(r.item.unwrap().get("createdAt").and_then(Value::as_str), Some("2026-03-14T09:00:00Z"));

    let q = db.build(r##"{"op":"query","pattern":"listProjects","values":{"orgId":"123"},"condition":{"createdAt":{"gte":"2026-03"}},"limit":10}"##).unwrap();
    assert_eq!(q.operation, "Query");
    assert_eq!(q.body, r##"{"TableName":"saas-api-dev","KeyConditionExpression":"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK"},"ExpressionAttributeValues":{":v0":{"S":"ORG#123"},":v1":{"S":"PROJECT#2026-03"},":v2":{"S":"PROJECT$"}},"ScanIndexForward":false,"Limit":10}"##);
}

#[test]
fn a_page_dynamodb_local_answered_and_its_cursor() {
    let db = open("saas");
    let head = r##"{"op":"page","pattern":"listUsers","values":{"orgId":"1"}"##;
    let page = db.call(&with_response(head, &response("local-query-users-page1.json"))).unwrap();
    let items = page.get("items").and_then(Value::as_array).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].get("entity").and_then(Value::as_str), Some("User"));
    assert_eq!(items[0].get("item").and_then(|i| i.get("email")).and_then(Value::as_str), Some("Ann@X.com"));
    assert_eq!(page.get("hasMore").and_then(Value::as_bool), Some(true));
    let cursor = page.get("cursor").and_then(Value::as_str).unwrap();

    let next = db.build(&format!(r##"{{"op":"query","pattern":"listUsers","values":{{"orgId":"1"}},"cursor":{}}}"##,
                                 json::quote(cursor))).unwrap();
    assert!(next.body.contains(r##""ExclusiveStartKey":{"PK":{"S":"ORG#1"},"SK":{"S":"USER#2"}}"##), "{}", next.body);
    let refused = db.build(&format!(r##"{{"op":"query","pattern":"listUsers","values":{{"orgId":"2"}},"cursor":{}}}"##,
                                    json::quote(cursor))).unwrap_err();
    assert_eq!((refused.name.as_str(), refused.path.as_str()), ("ECURSOR", "cursor"));
}

#[test]
fn a_refused_create_explained() {
    let db = open("saas");
    let head = r##"{"op":"explain","request":{"op":"create","entity":"User","values":{"orgId":"1","userId":"3","email":"ann@x.com","role":"admin","name":"Ann"}}"##;
    let why = db.call(&with_response(head, &response("local-error-cancel-unique.json"))).unwrap();
    assert_eq!(why.get("kind").and_then(Value::as_str), Some("unique"));
    assert_eq!(why.get("explanation").and_then(Value::as_str),
               Some("TransactItems[1]: unique constraint User.email: another User already has this email (EMAIL#ann@x.com)\n"));
    let err = db.call(&with_response(r##"{"op":"page","operation":"GetItem""##,
                                     &response("local-error-cancel-unique.json"))).unwrap_err();
    assert_eq!(err.name, "EDYNAMODB");
    let dynamodb = err.dynamodb.expect("what DynamoDB said");
    assert_eq!(dynamodb.get("type").and_then(Value::as_str), Some("TransactionCanceledException"));
}

#[test]
fn typed_errors() {
    let db = open("saas");
    let e = db.build(r##"{"op":"get","entity":"User","values":{"orgId":"1#USER#admin","userId":"9"}}"##).unwrap_err();
    assert_eq!((e.code, e.name.as_str(), e.path.as_str()), (-5, "EVALUE", "facet orgId"));
    assert_eq!(e.to_string(), "facet orgId: User.orgId contains the key delimiter '#', which would forge another key");
    let bad = Session::open(r##"{"model":"{\"ddbst\":1,\"table\":{\"name\":\"t\"}}"}"##).err().unwrap();
    assert_eq!(bad.name, "EMODEL");
    assert!(!bad.errors.is_empty());
}

#[test]
fn exact_numbers_and_binary() {
    let db = open("shop");
    let r = db.build(r##"{"op":"put","entity":"Order","now":1773478800000000,"values":{"customerId":"c1","orderId":"01KKNS5TM0JB3X7N5WJJTB8P91","status":"open","total":12345678901234567890.123456789,"quantity":9223372036854775807,"receipt":"iVBORwD//g=="}}"##).unwrap();
    assert!(r.body.contains(r##""total":{"N":"12345678901234567890.123456789"}"##), "{}", r.body);
    assert!(r.body.contains(r##""receipt":{"B":"iVBORwD//g=="}"##));
    let item = r.item.unwrap();
    assert_eq!(item.get("total").and_then(Value::as_number), Some("12345678901234567890.123456789"));
    assert_eq!(item.get("quantity").and_then(Value::as_i64), Some(i64::MAX));

    let answer = r##"{"Item":{"PK":{"S":"CUSTOMER#c1"},"SK":{"S":"ORDER#2026-03-14T09:00:00.000Z#01KKNS5TM0JB3X7N5WJJTB8P91"},"_type":{"S":"Order"},"weights":{"NS":["1E+100","0.000000000000000000000000000000000000000001"]},"total":{"N":"-0.5"}}}"##;
    let page = db.call(&with_response(r##"{"op":"page","operation":"GetItem""##, answer)).unwrap();
    let item = page.get("items").and_then(Value::as_array).unwrap()[0].get("item").unwrap().clone();
    assert_eq!(item.get("weights"), Some(&Value::Array(vec![
        Value::Number("1E+100".into()),
        Value::Number("0.000000000000000000000000000000000000000001".into())])));
    assert_eq!(item.get("total").and_then(Value::as_number), Some("-0.5"));
}

#[test]
fn one_session_many_threads() {
    let db = Arc::new(open("saas"));
    let threads: Vec<_> = (0..8).map(|t| {
        let db = Arc::clone(&db);
        std::thread::spawn(move || {
            for i in 0..50 {
                let org = format!("o{}x{}", t, i);
                let a = db.call(&format!(r##"{{"op":"keys","entity":"User","values":{{"orgId":"{}","userId":"u","email":"A@B.c"}}}}"##, org)).unwrap();
                assert_eq!(a.get("keys").and_then(|k| k.get("PK")).and_then(Value::as_str), Some(format!("ORG#{}", org).as_str()));
            }
        })
    }).collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn json_reader() {
    assert_eq!(json::parse(r##"{"a":[1,-2.5e+3,"\u00e9\ud83d\ude00",true,null]}"##).unwrap(),
               Value::Object(vec![("a".into(), Value::Array(vec![
                   Value::Number("1".into()), Value::Number("-2.5e+3".into()),
                   Value::String("é😀".into()), Value::Bool(true), Value::Null]))]));
    assert!(json::parse("{\"a\":1,}").is_err());
    assert!(json::parse(&"[".repeat(1000)).is_err());
    assert_eq!(ddbst::version().split('.').count(), 3);
}
