"""The SaaS example (examples/saas/model.json) through the installed ddbst
package and boto3, against DynamoDB or DynamoDB Local: ddbst builds every
request and reads every answer, boto3 signs, sends and retries them.

    scripts/dynamodb-local build/python/venv/bin/python \\
        bindings/python/tests/test_saas.py

Environment: DDBST_ENDPOINT (unset: the module is skipped, exit 77) and
boto3's usual AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. Each run
writes to a table of its own, deleted at the end.
"""

import concurrent.futures
import datetime
import json
import os
import sys
import time
import unittest

import boto3
import botocore.config
import botocore.exceptions

from ddbst import Ddbst, DdbstError, DynamoDBError, build_request
import ddbst.boto3

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..")
MODEL = os.path.join(ROOT, "examples", "saas", "model.json")
DOC = os.path.join(ROOT, "docs", "examples", "saas.md")
EXIT_SKIP = 77  # ctest's SKIP_RETURN_CODE


def skip_reason():
    if not os.environ.get("DDBST_ENDPOINT"):
        return ("DDBST_ENDPOINT is not set (run it under "
                "scripts/dynamodb-local, or set it to a DynamoDB endpoint)")
    return None


def client():
    """boto3's DynamoDB client for DDBST_ENDPOINT, retrying as boto3 does."""
    return boto3.client(
        "dynamodb", endpoint_url=os.environ["DDBST_ENDPOINT"],
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
        config=botocore.config.Config(retries={"mode": "standard",
                                               "max_attempts": 6}))


class DynamoDB:
    """ddbst's requests through boto3: (HTTP status, boto3's answer: its
    response dict, or the ClientError)."""

    def __init__(self):
        self.client = client()

    def send(self, request):
        try:
            return 200, ddbst.boto3.send(self.client, request)
        except botocore.exceptions.ClientError as e:
            return e.response["ResponseMetadata"]["HTTPStatusCode"], e


# ---- the run's data ----

NOW = 1773478800000000  # 2026-03-14T09:00:00Z, for defaults
# DynamoDB remembers a ClientRequestToken for ten minutes, across tables:
# one a run, so that a second run does not replay the first one's
TOKEN = f"py-eve-{os.getpid()}-{int(time.time())}"

ORGS = {
    "acme": {"orgId": "acme", "name": "Acme Corp", "plan": "pro",
             "createdAt": "2026-01-02T10:00:00Z"},
    "globex": {"orgId": "globex", "name": "Globex", "plan": "free",
               "createdAt": "2026-01-03T00:00:00Z"},
}
USERS = [
    {"orgId": "acme", "userId": "u1", "email": "ann@acme.example",
     "role": "admin", "name": "Ann Lee"},
    {"orgId": "acme", "userId": "u2", "email": "bob@acme.example",
     "role": "member", "name": "Bob Stone"},
    {"orgId": "acme", "userId": "u3", "email": "chloe@acme.example",
     "role": "member", "name": "Chlo\u00e9 Martin"},
    {"orgId": "acme", "userId": "u4", "email": "dev@acme.example",
     "role": "member", "name": "Dev Patel"},
    {"orgId": "acme", "userId": "u5", "email": "eve@acme.example",
     "role": "viewer", "name": "Eve Quinn"},
]
# as given; createdAt of p3 in another zone, read back in UTC
PROJECTS = [
    ("acme", "p1", "Apollo", "active", "2026-01-05T09:00:00Z"),
    ("acme", "p2", "Borealis", "archived", "2026-01-20T14:30:00Z"),
    ("acme", "p3", "Cygnus", "active", "2026-02-11T08:00:00+01:00"),
    ("acme", "p4", "Draco", "active", "2026-02-28T17:45:00Z"),
    ("acme", "p5", "Eridanus", "active", "2026-03-09T10:15:00Z"),
    ("globex", "p6", "Fornax", "active", "2026-02-01T12:00:00Z"),
]


def project(org, pid, name, status, created):
    return {"orgId": org, "projectId": pid, "name": name, "status": status,
            "createdAt": created}


def project_read(org, pid, name, status, created):
    """A project as read back: createdAt in UTC, attributes in the model's
    order."""
    utc = datetime.datetime.fromisoformat(created.replace("Z", "+00:00"))
    utc = utc.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"orgId": org, "projectId": pid, "createdAt": utc, "name": name,
            "status": status}


def event(i, ts, kind, payload=None, project_id="p1"):
    e = {"projectId": project_id, "ts": ts,
         "eventId": f"01JNX00000000000000000{i:04d}", "type": kind}
    if payload is not None:
        e["payload"] = payload
    return e


EVENTS = [
    event(1, "2026-03-01T09:00:00Z", "created"),
    event(2, "2026-03-01T16:20:00Z", "comment", {"by": "u2"}),
    event(3, "2026-03-02T08:00:00Z", "deploy", {"version": "1.0.0"}),
    event(4, "2026-03-02T12:30:00Z", "comment", {"by": "u3"}),
    event(5, "2026-03-03T09:15:00Z", "deploy",
          {"version": "1.0.1", "replicas": 3, "canary": True,
           "tags": ["a", "b"]}),
    event(6, "2026-03-03T18:00:00Z", "incident", {"severity": 2}),
    event(7, "2026-03-04T23:59:59Z", "deploy", {"version": "1.0.2"}),
    event(8, "2026-03-05T00:00:00Z", "comment", {"by": "u1"}),
]
EVENTS[5]["expiresAt"] = 1800000000


def entity_items(entity, values):
    return [{"entity": entity, "item": v} for v in values]


# ---- the test ----

db = dynamo = table = None


def setUpModule():
    global db, dynamo, table
    reason = skip_reason()
    if reason:
        raise unittest.SkipTest(reason)
    dynamo = DynamoDB()
    table = f"saas-api-py-{int(time.time())}-{os.getpid()}"
    db = Ddbst(model_file=MODEL, table=table, cursor_keys=os.urandom(32),
               cursor_max_age=3600)


def tearDownModule():
    if db is None:
        return
    try:
        try:
            dynamo.client.delete_table(TableName=table)
        except botocore.exceptions.ClientError as e:
            if e.response["Error"]["Code"] != "ResourceNotFoundException":
                print(f"DeleteTable {table}: {e}", file=sys.stderr)
    finally:
        db.close()


class SaaS(unittest.TestCase):
    """In order (test_NN_): the table, the writes, the seven patterns, then
    the writes that change what the patterns read."""

    maxDiff = None

    # ---- helpers ----

    def send_ok(self, request):
        status, text = dynamo.send(request)
        self.assertEqual(status, 200, f"{request['operation']}: {text}")
        return text

    def write_batches(self, answer):
        """Every BatchWriteItem of a batchWrite answer, with the follow-up
        of what DynamoDB leaves unprocessed, until nothing is left."""
        for request in answer["requests"]:
            for _ in range(10):
                text = self.send_ok(request)
                page = db.page(text, operation="BatchWriteItem")
                if "followup" not in page:
                    break
                request = page["followup"]
            else:
                self.fail("items still unprocessed")

    def read_pages(self, pattern, values, limit, **options):
        """Every page of a query, each next one started from the sealed
        cursor of the one before: a list of the pages' items."""
        pages, cursor = [], None
        while True:
            request = db.query(pattern, values, limit=limit, cursor=cursor,
                               **options)
            self.assertEqual(request["target"], "DynamoDB_20120810.Query")
            page = db.page(self.send_ok(request), operation="Query",
                           pattern=pattern, values=values)
            self.assertEqual(page["count"], len(page["items"]))
            pages.append(page["items"])
            if not page["hasMore"]:
                self.assertNotIn("cursor", page)
                return pages
            cursor = page["cursor"]
            self.assertEqual(type(cursor), str)
            self.assertLess(len(pages), 20, "too many pages")

    def get_one(self, entity, values):
        request = db.get(entity, values, consistent=True)
        self.assertEqual(request["operation"], "GetItem")
        self.assertTrue(request["body"]["ConsistentRead"])
        return db.page(self.send_ok(request), operation="GetItem")["items"]

    # ---- the model, without DynamoDB ----

    def test_00_model(self):
        self.assertRegex(db.version(), r"^\d+\.\d+\.\d+")
        self.assertEqual(db.check(), {"ok": True, "table": table,
                                      "entities": 4, "patterns": 7})
        patterns = db.patterns()
        self.assertEqual(list(patterns), [
            "getOrganisation", "getUser", "listUsers", "userByEmail",
            "listProjects", "listEvents", "projectsByStatus"])
        self.assertEqual(patterns["listEvents"], {
            "op": "query", "entities": ["Event"], "index": None,
            "pk": "PROJECT#{projectId}", "sk": "EVENT#{ts}#{eventId}",
            "range": "ts", "order": "asc",
            "limit": {"default": 100, "max": 1000}})
        self.assertEqual(patterns["projectsByStatus"]["index"], "GSI2")

        lint = db.lint()
        self.assertEqual(lint["errors"], 0)
        self.assertEqual([(f["severity"], f["rule"], f["path"])
                          for f in lint["findings"]], [
            ("note", "few-partitions", "entities.Project.indexes.GSI2.pk"),
            ("warning", "item-size", "entities.Event.attributes.payload")])

        # the model's own table name: the page in docs/ is this very text
        with Ddbst(model_file=MODEL) as plain, \
                open(DOC, encoding="utf-8") as f:
            self.assertEqual(plain.doc(), f.read())
        self.assertTrue(db.doc().startswith(f"# {table}\n"))

        template = db.cloudformation(stream_filters=["Event:INSERT"])
        resources = template["Resources"]
        self.assertEqual(resources["AppTable"]["Type"],
                         "AWS::DynamoDB::Table")
        # the name in force is the TableName parameter's default
        self.assertEqual(template["Parameters"]["TableName"]["Default"],
                         table)
        self.assertEqual(resources["AppTable"]["Properties"]["TableName"],
                         {"Fn::If": ["HasStage", {"Fn::Join": [
                             "-", [{"Ref": "TableName"}, {"Ref": "Stage"}]]},
                             {"Ref": "TableName"}]})
        self.assertEqual(template["Outputs"]["StreamArn"]["Value"],
                         {"Fn::GetAtt": ["AppTable", "StreamArn"]})
        self.assertIn("INSERT", json.dumps(template))
        with self.assertRaises(DdbstError) as cm:
            db.cloudformation(stream_filters=["Nobody"])
        self.assertTrue(cm.exception.path.startswith("streamFilters[0]"),
                        cm.exception.path)

    def test_01_keys(self):
        answer = db.keys("Project", project(
            "acme", "p3", "Cygnus", "active", "2026-02-11T08:00:00+01:00"))
        self.assertEqual(answer["keys"], {
            "PK": "ORG#acme", "SK": "PROJECT#2026-02-11T07:00:00Z#p3",
            "GSI2PK": "STATUS#active", "GSI2SK": "2026-02-11T07:00:00Z",
            "_type": "Project"})
        self.assertEqual(answer["item"], project_read(*PROJECTS[2]))
        self.assertEqual(db.keys("User", {
            "orgId": "acme", "userId": "u1", "email": "Ann@Acme.Example"})
            ["keys"], {"PK": "ORG#acme", "SK": "USER#u1",
                       "GSI1PK": "EMAIL#ann@acme.example", "_type": "User"})
        # a default: createdAt from `now`; no status, no GSI2 (sparse)
        self.assertEqual(db.keys("Organisation", {"orgId": "acme"}, now=NOW),
                         {"keys": {"PK": "ORG#acme", "SK": "ORG#acme",
                                   "_type": "Organisation"},
                          "item": {"orgId": "acme",
                                   "createdAt": "2026-03-14T09:00:00Z"}})
        self.assertEqual(db.keys("Project", {
            "orgId": "acme", "projectId": "p9"}, now=NOW)["keys"],
            {"PK": "ORG#acme", "SK": "PROJECT#2026-03-14T09:00:00Z#p9",
             "_type": "Project"})

        self.assertEqual(db.parse("ORG#acme",
                                  "PROJECT#2026-02-11T07:00:00Z#p3"),
                         {"entity": "Project", "values": {
                             "orgId": "acme", "projectId": "p3",
                             "createdAt": "2026-02-11T07:00:00Z"}})
        self.assertEqual(db.parse("STATUS#active", "2026-02-11T07:00:00Z",
                                  index="GSI2"),
                         {"entity": "Project", "values": {
                             "createdAt": "2026-02-11T07:00:00Z",
                             "status": "active"}})

        self.assertEqual(db.item_size("Event", EVENTS[4]),
                         {"bytes": ITEM_SIZE, "limit": 409600})

    def test_02_refused_values(self):
        with self.assertRaises(DdbstError) as cm:
            db.keys("User", {"orgId": "acme#USER#admin", "userId": "u1"})
        e = cm.exception
        self.assertEqual((e.code, e.name, e.path),
                         (-5, "EVALUE", "facet orgId"))
        self.assertEqual(e.message, "User.orgId contains the key delimiter "
                         "'#', which would forge another key")
        self.assertEqual(str(e), "facet orgId: " + e.message)
        self.assertNotIsInstance(e, DynamoDBError)
        # the same through a query's values
        with self.assertRaises(DdbstError) as cm:
            db.query("listUsers", {"orgId": "a#b"})
        self.assertEqual(cm.exception.path, "facet orgId")
        # a number for a string attribute: not quietly "42"
        with self.assertRaises(DdbstError) as cm:
            db.keys("User", {"orgId": 42, "userId": "u1"})
        self.assertEqual((cm.exception.name, cm.exception.path),
                         ("EVALUE", "values.orgId"))
        with self.assertRaises(DdbstError) as cm:
            db.call({"op": "nope"})
        self.assertEqual((cm.exception.name, cm.exception.path),
                         ("EINVAL", "op"))
        with self.assertRaises(DdbstError) as cm:
            Ddbst(model={"ddbst": 1, "table": {"name": "t"}})
        self.assertEqual(cm.exception.name, "EMODEL")
        self.assertGreaterEqual(len(cm.exception.errors), 1)

    def test_04_threads(self):
        # one session, called from several threads at once
        def keys_of(n):
            return db.keys("User", {"orgId": f"org{n}", "userId": f"u{n}",
                                    "email": f"U{n}@X.example"})["keys"]

        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            got = list(pool.map(keys_of, range(400)))
        self.assertEqual(got, [{"PK": f"ORG#org{n}", "SK": f"USER#u{n}",
                                "GSI1PK": f"EMAIL#u{n}@x.example",
                                "_type": "User"} for n in range(400)])

    # ---- the table and the writes ----

    def test_10_create_table(self):
        request = db.create_table()
        self.assertEqual(request["target"], "DynamoDB_20120810.CreateTable")
        self.assertEqual(request["body"]["TableName"], table)
        self.send_ok(request)
        for _ in range(600):
            t = dynamo.client.describe_table(TableName=table)["Table"]
            if t["TableStatus"] == "ACTIVE" and all(
                    i["IndexStatus"] == "ACTIVE"
                    for i in t.get("GlobalSecondaryIndexes", [])):
                return
            time.sleep(0.5)
        self.fail(f"{table} not ACTIVE")

    def test_11_write(self):
        # create: a conditional PutItem
        acme = db.create("Organisation", ORGS["acme"])
        self.assertEqual(acme["operation"], "PutItem")
        self.assertEqual(acme["body"]["ConditionExpression"],
                         "attribute_not_exists(#n0)")
        self.assertEqual(acme["item"], ORGS["acme"])
        self.send_ok(acme)
        # put: a default filled from `now`, shown in "item"
        globex = {k: v for k, v in ORGS["globex"].items() if k != "createdAt"}
        put = db.put("Organisation", globex,
                     now=1767398400000000)  # 2026-01-03T00:00:00Z
        self.assertNotIn("ConditionExpression", put["body"])
        self.assertEqual(put["item"], ORGS["globex"])
        self.send_ok(put)

        # a unique email: TransactWriteItems with its guard item
        for user in USERS[:4]:
            request = db.create("User", user)
            self.assertEqual(request["operation"], "TransactWriteItems")
            guard = request["body"]["TransactItems"][1]["Put"]["Item"]
            self.assertEqual(guard["PK"], {"S": "EMAIL#" + user["email"]})
            self.send_ok(request)
        # transact: Eve, if acme exists
        request = db.transact([
            {"op": "create", "entity": "User", "values": USERS[4]},
            {"op": "check", "entity": "Organisation",
             "values": {"orgId": "acme"}}], token=TOKEN)
        self.assertEqual(request["operation"], "TransactWriteItems")
        self.assertEqual(request["body"]["ClientRequestToken"], TOKEN)
        self.assertEqual(len(request["body"]["TransactItems"]), 3)
        self.send_ok(request)

        # projects and events: plain puts, batched
        answer = db.batch_write(
            [{"op": "put", "entity": "Project", "values": project(*p)}
             for p in PROJECTS] +
            [{"op": "put", "entity": "Event", "values": e} for e in EVENTS])
        self.assertEqual(len(answer["requests"]), 1)  # 14 of at most 25
        self.write_batches(answer)

        # a generated eventId (a ULID) comes back in "item"
        request = db.create("Event", {"projectId": "p2",
                                      "ts": "2026-03-02T10:00:00Z",
                                      "type": "archived"})
        generated = request["item"]["eventId"]
        self.assertRegex(generated, r"^[0-9A-HJKMNP-TV-Z]{26}$")
        self.assertEqual(request["body"]["Item"]["SK"],
                         {"S": "EVENT#2026-03-02T10:00:00Z#" + generated})
        self.send_ok(request)

    # ---- the seven access patterns ----

    def test_20_get_organisation(self):
        self.assertEqual(self.get_one("Organisation", {"orgId": "acme"}),
                         entity_items("Organisation", [ORGS["acme"]]))
        self.assertEqual(self.get_one("Organisation", {"orgId": "initech"}),
                         [])

    def test_21_get_user(self):
        self.assertEqual(
            self.get_one("User", {"orgId": "acme", "userId": "u3"}),
            entity_items("User", [USERS[2]]))

    def test_22_list_users(self):
        pages = self.read_pages("listUsers", {"orgId": "acme"}, 2)
        self.assertEqual([len(p) for p in pages][:3], [2, 2, 1])
        self.assertEqual(sum(pages, []), entity_items("User", USERS))
        self.assertEqual(self.read_pages("listUsers", {"orgId": "globex"}, 2),
                         [[]])

    def test_23_user_by_email(self):
        # GSI1 is KEYS_ONLY: the user's key facets, then GetItem. The
        # pattern's limit is 1, so DynamoDB cannot know the page was the
        # last: a second, empty one follows.
        pages = self.read_pages("userByEmail", {"email": "ANN@Acme.Example"},
                                None)
        # and says what GSI1 leaves out (unknown, not absent)
        self.assertEqual(pages, [[{
            "entity": "User", "item": {"orgId": "acme", "userId": "u1"},
            "notProjected": ["email", "role", "name"]}], []])
        self.assertEqual(self.get_one("User", pages[0][0]["item"]),
                         entity_items("User", [USERS[0]]))

    def test_24_list_projects(self):
        pages = self.read_pages("listProjects", {"orgId": "acme"}, 2)
        self.assertEqual([len(p) for p in pages][:3], [2, 2, 1])
        want = [project_read(*p) for p in reversed(PROJECTS[:5])]
        self.assertEqual(sum(pages, []), entity_items("Project", want))
        # a sort-key condition on the facet after the prefix
        request = db.query("listProjects", {"orgId": "acme"},
                           condition={"createdAt": {"begins": "2026-02"}})
        page = db.page(self.send_ok(request))
        self.assertEqual(page["items"], entity_items(
            "Project",
            [project_read(*PROJECTS[3]), project_read(*PROJECTS[2])]))

    def test_25_list_events(self):
        # a partial upper bound covers the whole day: 23:59:59 included
        pages = self.read_pages(
            "listEvents", {"projectId": "p1"}, 3,
            condition={"ts": {"between": ["2026-03-02", "2026-03-04"]}})
        self.assertEqual([len(p) for p in pages][:2], [3, 2])
        self.assertEqual(sum(pages, []), entity_items("Event", EVENTS[2:7]))
        self.assertEqual(pages[1][0]["item"]["expiresAt"], 1800000000)
        self.assertEqual(pages[0][2]["item"]["payload"]["tags"], ["a", "b"])

    def test_26_projects_by_status(self):
        # GSI2 projects name and status, GSI2SK gives createdAt, the table's
        # keys (in every index) orgId and projectId: whole projects
        pages = self.read_pages("projectsByStatus", {"status": "active"}, 2)
        active = [p for p in PROJECTS if p[3] == "active"]
        active.sort(key=lambda p: project_read(*p)["createdAt"], reverse=True)
        self.assertEqual(sum(pages, []), entity_items(
            "Project", [project_read(*p) for p in active]))
        self.assertEqual([len(p) for p in pages][:3], [2, 2, 1])

    # ---- cursors ----

    def first_cursor(self, pattern, values):
        page = db.page(self.send_ok(db.query(pattern, values, limit=2)),
                       pattern=pattern, values=values)
        self.assertTrue(page["hasMore"])
        return page["cursor"]

    def test_30_tampered_cursor(self):
        cursor = self.first_cursor("listUsers", {"orgId": "acme"})
        middle = len(cursor) // 2
        tampered = (cursor[:middle] + ("B" if cursor[middle] == "A" else "A")
                    + cursor[middle + 1:])
        with self.assertRaises(DdbstError) as cm:
            db.query("listUsers", {"orgId": "acme"}, limit=2, cursor=tampered)
        e = cm.exception
        self.assertEqual((e.code, e.name, e.path), (-11, "ECURSOR", "cursor"))
        self.assertEqual(e.message, CURSOR_REFUSED)
        # the untouched one still opens
        db.query("listUsers", {"orgId": "acme"}, limit=2, cursor=cursor)

    def test_31_cursor_of_another_tenant(self):
        cursor = self.first_cursor("listUsers", {"orgId": "acme"})
        with self.assertRaises(DdbstError) as cm:
            db.query("listUsers", {"orgId": "globex"}, limit=2, cursor=cursor)
        self.assertEqual((cm.exception.name, cm.exception.path),
                         ("ECURSOR", "cursor"))
        # nor by another session's keys
        with Ddbst(model_file=MODEL, table=table,
                   cursor_keys=os.urandom(32)) as other:
            with self.assertRaises(DdbstError) as cm:
                other.query("listUsers", {"orgId": "acme"}, cursor=cursor)
            self.assertEqual(cm.exception.name, "ECURSOR")

    # ---- batches and transactions that read ----

    def test_40_batch_get(self):
        answer = db.batch_get([
            {"op": "get", "entity": "Organisation",
             "values": {"orgId": "acme"}},
            {"op": "get", "entity": "User",
             "values": {"orgId": "acme", "userId": "u2"}},
            {"op": "get", "entity": "Organisation",
             "values": {"orgId": "initech"}},
        ], consistent=True)
        self.assertEqual(len(answer["requests"]), 1)
        page = db.page(self.send_ok(answer["requests"][0]),
                       operation="BatchGetItem")
        self.assertNotIn("followup", page)
        got = sorted(page["items"], key=lambda i: i["entity"])
        self.assertEqual(got, entity_items("Organisation", [ORGS["acme"]]) +
                         entity_items("User", [USERS[1]]))

    def test_41_transact_get(self):
        request = db.transact([
            {"op": "get", "entity": "User",
             "values": {"orgId": "acme", "userId": "u4"}},
            {"op": "get", "entity": "User",
             "values": {"orgId": "acme", "userId": "u404"}}])
        self.assertEqual(request["operation"], "TransactGetItems")
        page = db.page(self.send_ok(request), operation="TransactGetItems")
        # an empty slot is null
        self.assertEqual(page["items"],
                         entity_items("User", [USERS[3]]) + [None])

    # ---- refused writes, explained ----

    def test_50_duplicate_email(self):
        request = build_request("create", entity="User", values={
            "orgId": "acme", "userId": "u6", "email": "ANN@ACME.example",
            "role": "member", "name": "Ann Again"})
        status, text = dynamo.send(db.call(request))
        self.assertEqual(status, 400, text)
        answer = db.explain(request, text)
        self.assertEqual(answer["dynamodb"]["kind"], "TransactionCanceled")
        self.assertEqual(answer["kind"], "unique")
        self.assertIn("unique constraint User.email", answer["explanation"])
        self.assertEqual(self.get_one("User", {"orgId": "acme",
                                               "userId": "u6"}), [])

    def test_51_existing_organisation(self):
        request = build_request("create", entity="Organisation",
                                values=ORGS["globex"])
        status, text = dynamo.send(db.call(request))
        self.assertEqual(status, 400, text)
        answer = db.explain(request, text)
        self.assertEqual(answer["dynamodb"]["kind"], "ConditionalCheckFailed")
        self.assertFalse(answer["dynamodb"]["retryable"])
        self.assertEqual(answer["kind"], "exists")

    def test_52_dynamodb_error_page(self):
        # an answer that is DynamoDB's error raises DynamoDBError
        with Ddbst(model_file=MODEL, table=table + "-missing") as missing:
            status, text = dynamo.send(missing.get("Organisation",
                                                   {"orgId": "acme"}))
        self.assertEqual(status, 400, text)
        with self.assertRaises(DynamoDBError) as cm:
            db.page(text, operation="GetItem")
        e = cm.exception
        self.assertEqual((e.name, e.kind, e.retryable),
                         ("EDYNAMODB", "ResourceNotFound", False))
        self.assertEqual(e.type, "ResourceNotFoundException")
        self.assertEqual(e.reasons, [])

    # ---- writes that change what the patterns read ----

    def test_60_update_moves_gsi2(self):
        p1 = project_read(*PROJECTS[0])
        key = {k: p1[k] for k in ("orgId", "projectId", "createdAt")}
        request = db.update("Project", key, set={"status": "archived"})
        self.assertEqual(request["operation"], "UpdateItem")
        names = request["body"]["ExpressionAttributeNames"]
        self.assertIn("GSI2PK", names.values())
        self.send_ok(request)
        archived = sum(self.read_pages("projectsByStatus",
                                       {"status": "archived"}, 10), [])
        self.assertEqual([i["item"]["name"] for i in archived],
                         ["Borealis", "Apollo"])
        active = sum(self.read_pages("projectsByStatus",
                                     {"status": "active"}, 10), [])
        self.assertNotIn("Apollo", [i["item"]["name"] for i in active])
        # updating a project that is not there: refused, and explained
        missing = build_request("update", entity="Project", values={
            "orgId": "acme", "projectId": "p404",
            "createdAt": "2026-01-01T00:00:00Z"}, set={"name": "Ghost"})
        status, text = dynamo.send(db.call(missing))
        self.assertEqual(status, 400, text)
        self.assertEqual(db.explain(missing, text)["kind"], "missing")

    def test_62_returns_and_counts(self):
        p2 = project_read(*PROJECTS[1])
        key = {k: p2[k] for k in ("orgId", "projectId", "createdAt")}
        # ReturnValues read back through ddbst's parser
        request = db.update("Project", key, set={"name": "Renamed"},
                            return_values="UPDATED_NEW")
        self.assertEqual(request["body"]["ReturnValues"], "UPDATED_NEW")
        answer = db.page(self.send_ok(request), operation="UpdateItem",
                         entity="Project")
        self.assertEqual(answer["items"][0]["item"]["name"], "Renamed")
        self.assertNotIn("orgId", answer["items"][0]["item"])
        # a failed condition explained with the value it met (in a
        # transaction: Debian's botocore predates the single writes'
        # ReturnValuesOnConditionCheckFailure)
        failing = build_request("transact", items=[{
            "op": "update", "entity": "Project", "values": key,
            "set": {"name": "Again"}, "condition": 'name = "Nope"'}],
            return_on_failure=True)
        status, text = dynamo.send(db.call(failing))
        self.assertEqual(status, 400, text)
        explained = db.explain(failing, text)
        self.assertEqual(explained["kind"], "condition")
        self.assertEqual(explained["explanation"],
                         "TransactItems[0]: Project (ORG#acme / PROJECT#"
                         + key["createdAt"] + "#" + key["projectId"]
                         + "): the condition failed: name is Renamed\n")
        # Select COUNT: the count equals the items
        items = sum(self.read_pages("listEvents", {"projectId": "p1"}, 100),
                    [])
        count = db.query("listEvents", {"projectId": "p1"}, select="COUNT")
        self.assertEqual(count["body"]["Select"], "COUNT")
        self.assertEqual(db.page(self.send_ok(count))["matched"], len(items))

    def test_61_delete(self):
        # a user with a unique email: deleted with its guard item
        request = db.delete("User", USERS[4])
        self.assertEqual(request["operation"], "TransactWriteItems")
        self.send_ok(request)
        self.assertEqual(self.get_one("User", {"orgId": "acme",
                                               "userId": "u5"}), [])
        self.assertEqual(self.read_pages("userByEmail",
                                         {"email": "eve@acme.example"}, None),
                         [[]])
        # an event: a plain DeleteItem
        request = db.delete("Event", EVENTS[0], if_exists=True)
        self.assertEqual(request["operation"], "DeleteItem")
        self.send_ok(request)
        events = sum(self.read_pages("listEvents", {"projectId": "p1"}, 100),
                     [])
        self.assertEqual(events, entity_items("Event", EVENTS[1:]))

    # ---- a stream event ----

    def test_70_stream(self):
        acme_item = db.put("Organisation", ORGS["acme"])["body"]["Item"]
        old_p1 = db.put("Project", project(*PROJECTS[0]))["body"]["Item"]
        new_p1 = dict(old_p1, status={"S": "archived"},
                      GSI2PK={"S": "STATUS#archived"})
        event_item = db.put("Event", EVENTS[5])["body"]["Item"]

        def record(n, name, keys_of, new=None, old=None, **extra):
            change = {"ApproximateCreationDateTime": 1773478800.0,
                      "Keys": {"PK": keys_of["PK"], "SK": keys_of["SK"]},
                      "SequenceNumber": f"{n:021d}", "SizeBytes": 100,
                      "StreamViewType": "NEW_AND_OLD_IMAGES"}
            if new:
                change["NewImage"] = new
            if old:
                change["OldImage"] = old
            r = {"eventID": f"id-{n}", "eventName": name,
                 "eventVersion": "1.1", "eventSource": "aws:dynamodb",
                 "awsRegion": "us-east-1", "dynamodb": change,
                 "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:"
                                   f"table/{table}/stream/2026-03-14T09:00"
                                   ":00.000"}
            r.update(extra)
            return r

        lambda_event = {"Records": [
            record(1, "INSERT", acme_item, new=acme_item),
            record(2, "MODIFY", old_p1, new=new_p1, old=old_p1),
            record(3, "REMOVE", event_item, old=event_item,
                   userIdentity={"type": "Service",
                                 "principalId": "dynamodb.amazonaws.com"}),
        ]}
        answer = db.stream(lambda_event, failed=[2, 1])
        p1 = project_read(*PROJECTS[0])
        self.assertEqual(answer["records"], [
            {"eventName": "INSERT", "sequenceNumber": f"{1:021d}",
             "eventID": "id-1", "entity": "Organisation",
             "keys": {"orgId": "acme"}, "new": ORGS["acme"]},
            {"eventName": "MODIFY", "sequenceNumber": f"{2:021d}",
             "eventID": "id-2", "entity": "Project",
             "keys": {k: p1[k] for k in ("orgId", "createdAt", "projectId")},
             "new": dict(p1, status="archived"), "old": p1},
            {"eventName": "REMOVE", "sequenceNumber": f"{3:021d}",
             "eventID": "id-3", "entity": "Event",
             "keys": {k: EVENTS[5][k] for k in ("projectId", "ts", "eventId")},
             "old": EVENTS[5], "removedByTtl": True},
        ])
        self.assertEqual(answer["failures"], {"batchItemFailures": [
            {"itemIdentifier": f"{2:021d}"},
            {"itemIdentifier": f"{3:021d}"}]})
        self.assertEqual(db.stream('{"Records":[]}'), {"records": []})

    # ---- scans and orphan guards (last: they leave an orphan behind) ----

    def test_80_scan_and_orphan_guards(self):
        t = ddbst.boto3.Table(db, dynamo.client)
        # every item, read by boto3's own paginator: the oracle
        oracle = []
        for raw in dynamo.client.get_paginator("scan").paginate(
                TableName=table, ConsistentRead=True):
            oracle += [(i["PK"]["S"], i["SK"]["S"]) for i in raw["Items"]]
        self.assertGreater(len(oracle), 20)
        # ddbst's scan in 3 segments, 4 items a page, sealed cursors
        seen = []
        for s in range(3):
            for entry in t.scan_all(segment=s, total_segments=3, limit=4):
                item = entry["item"]
                if entry["entity"] is None:  # a guard: every attribute
                    seen.append((item["PK"], item["SK"]))
                else:
                    keys = db.keys(entry["entity"], item)["keys"]
                    seen.append((keys["PK"], keys["SK"]))
        self.assertEqual(sorted(seen), sorted(oracle))
        # a cursor of segment 0 is refused by segment 1
        page = t.scan(segment=0, total_segments=3, limit=1)
        with self.assertRaises(DdbstError) as e:
            db.scan(segment=1, total_segments=3, cursor=page["cursor"])
        self.assertEqual(e.exception.name, "ECURSOR")
        # no orphan, then one: a user deleted behind ddbst's back
        self.assertEqual(t.orphan_guards(limit=7)["orphans"], [])
        dynamo.client.delete_item(TableName=table, Key={
            "PK": {"S": "ORG#acme"}, "SK": {"S": "USER#u1"}})
        audit = t.orphan_guards(limit=7)
        self.assertEqual(audit["orphans"], [{
            "kind": "missing", "entity": "User", "unique": "email",
            "guard": "EMAIL#ann@acme.example",
            "holder": {"PK": "ORG#acme", "SK": "USER#u1"}}])


# EVENTS[4] as DynamoDB counts it, names plus values: PK 12, SK 55, _type
# 10, projectId 11, ts 22, eventId 33, type 10, payload 54 (7 + a map's 3 +
# 1 an element + version 12, replicas 10, canary 7, tags 11)
ITEM_SIZE = 207
CURSOR_REFUSED = ("the cursor does not open: it was made for another "
                  "pattern, index, sort order or partition, or it was altered")

if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        print(f"test_saas.py: skipped: {reason}", file=sys.stderr)
        sys.exit(EXIT_SKIP)
    unittest.main(verbosity=2)
