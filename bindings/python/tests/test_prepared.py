"""Prepared operations (Ddbst.prepare): the same bodies as Ddbst.build for
the same requests, byte for byte; values the segments do not carry, and
every failure, answered by the JSON entry with its own errors; handles
freed with their session. Then on DynamoDB Local through boto3: a prepared
update (SET, REMOVE, ADD, the version expected) sent as its bytes and read
back by boto3 alone, refused once the version moved; prepared queries
paged through ddbst.boto3.Table.

    scripts/dynamodb-local bindings/test python

The first part runs without DDBST_ENDPOINT; the second is skipped.
"""

import datetime
import os
import sys
import time
import unittest
from decimal import Decimal

import ddbst._session
from ddbst import Ddbst, DdbstError, DynamoDBError, Prepared

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..")
SAAS = os.path.join(ROOT, "examples", "saas", "model.json")
CATALOG = os.path.join(ROOT, "examples", "catalog", "model.json")
SHOP = os.path.join(ROOT, "examples", "shop", "model.json")
KEY = "00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210"
NOW = 1773478800000000  # 2026-03-14T09:00:00Z


def project(n):
    return {"orgId": "acme", "projectId": f"p-{n:03d}",
            "createdAt": f"2026-03-{1 + n % 28:02d}T09:00:00Z",
            "name": f"Project {n}", "status": "active"}


def entry(db, op, **fields):
    """The JSON entry's body for the same request."""
    return db.build(ddbst.build_request(op, **fields))[1]


class Counted:
    """How many requests went through the JSON entry meanwhile."""

    def __init__(self, db):
        self.db, self.n = db, 0

    def __enter__(self):
        build = self.db.build

        def counting(request):
            self.n += 1
            return build(request)
        self.db.build = counting
        return self

    def __exit__(self, *exc):
        del self.db.build


class Bodies(unittest.TestCase):
    def setUp(self):
        self.db = Ddbst(model_file=SAAS, cursor_keys=KEY)
        self.cat = Ddbst(model_file=CATALOG)

    def tearDown(self):
        self.db.close()
        self.cat.close()

    def fast(self, db, f):
        with Counted(db) as c:
            out = f()
        self.assertEqual(c.n, 0, "built without the JSON entry")
        return out

    def test_put_get_delete_query(self):
        db = self.db
        put = db.prepare("put", "Project")
        self.assertIsInstance(put, Prepared)
        self.assertEqual(put.entity, "Project")
        v = project(1)
        body = self.fast(db, lambda: put.body(v, now=NOW))
        self.assertEqual(body, entry(db, "put", entity="Project", values=v,
                                     now=NOW))
        self.assertIn(b'"SK":{"S":"PROJECT#2026-03-02T09:00:00Z#p-001"}', body)
        r = put.request(v, now=NOW)
        self.assertEqual((r.operation, r.target, r.body),
                         ("PutItem", "DynamoDB_20120810.PutItem", body))
        # a default filled at `now`, as the entry fills it
        rest = {k: x for k, x in v.items() if k != "createdAt"}
        self.assertEqual(put.body(rest, now=NOW),
                         entry(db, "put", entity="Project", values=rest,
                               now=NOW))
        key = {k: v[k] for k in ("orgId", "projectId", "createdAt")}
        self.assertEqual(
            db.prepare("get", "Project", consistent=True).body(key),
            entry(db, "get", entity="Project", values=key, consistent=True))
        self.assertEqual(
            db.prepare("delete", "Project", if_exists=True,
                       return_values="ALL_OLD").body(key),
            entry(db, "delete", entity="Project", values=key, if_exists=True,
                  return_values="ALL_OLD"))
        create = db.prepare("create", "User")
        user = {"orgId": "acme", "userId": "u-1", "email": "Ann@Example.com"}
        self.assertEqual(self.fast(db, lambda: create.body(user, now=NOW)),
                         entry(db, "create", entity="User", values=user,
                               now=NOW))
        self.assertEqual(create.operation, "TransactWriteItems")
        q = db.prepare("query", "listProjects")
        page = db.page({"Items": [], "Count": 0, "ScannedCount": 0,
                        "LastEvaluatedKey": {
                            "PK": {"S": "ORG#acme"},
                            "SK": {"S": "PROJECT#2026-03-02T09:00:00Z#p-001"}}},
                       pattern="listProjects", values={"orgId": "acme"},
                       now=NOW)
        o = {"limit": 2, "cursor": page["cursor"], "now": NOW}
        self.assertEqual(self.fast(db, lambda: q.body({"orgId": "acme"}, **o)),
                         entry(db, "query", pattern="listProjects",
                               values={"orgId": "acme"}, **o))

    def test_every_kind_of_value(self):
        shop = Ddbst(model_file=SHOP)
        put = shop.prepare("put", "Order")
        values = {
            "customerId": "c1", "orderId": "01KKNS5TM0JB3X7N5WJJTB8P91",
            "placedAt": datetime.datetime(
                2026, 3, 14, 10, 0, 0, 123000,
                tzinfo=datetime.timezone(datetime.timedelta(hours=1))),
            "status": "open", "total": Decimal("12345678901234567890.5"),
            "quantity": 9223372036854775807, "receipt": bytes(range(256)),
            "tags": {"gift", "fragile"},
            "weights": frozenset({Decimal("0.1"), Decimal("2"), 3.5}),
            "lines": [{"sku": "A-1", "price": Decimal("19.99"), "n": 2,
                       "note": "\u00e9\u2028\"q\""}],
            "address": {"city": "Oslo", "zip": "0150"},
        }
        self.assertEqual(self.fast(shop, lambda: put.body(values, now=NOW)),
                         entry(shop, "put", entity="Order", values=values,
                               now=NOW))
        shop.close()

    def test_update(self):
        cat = self.cat
        key = {"shopId": "s1", "sku": "k1"}
        u = cat.prepare("update", "Product")
        values = dict(key, name="Hat", price=Decimal("19.5"), featured=True)
        o = {"remove": ["category"], "add": {"stock": 2, "tags": {"sale"}},
             "append": {"images": ["front.png"]}, "expect_version": 3,
             "now": NOW}
        body = self.fast(cat, lambda: u.body(values, **o))
        self.assertEqual(body, entry(cat, "update", entity="Product",
                                     values=values, **o))
        self.assertEqual(u.operation, "UpdateItem")
        self.assertIn(b'"ConditionExpression":"attribute_exists(#n11) AND '
                      b'#n5 = :v9"', body)
        # an ADD to a number set, and floats
        o2 = {"add": {"sizes": {38, Decimal("40.5")}, "price": 1.25},
              "now": NOW}
        self.assertEqual(self.fast(cat, lambda: u.body(key, **o2)),
                         entry(cat, "update", entity="Product", values=key,
                               **o2))
        # an upsert answering with the item as it is now
        up = cat.prepare("update", "Product", upsert=True,
                         return_values="ALL_NEW", return_on_failure=True)
        self.assertEqual(
            self.fast(cat, lambda: up.body(values, now=NOW)),
            entry(cat, "update", entity="Product", values=values,
                  upsert=True, return_values="ALL_NEW",
                  return_on_failure=True, now=NOW))
        # an attribute both set and removed: the JSON entry's answer
        with Counted(cat) as c:
            with self.assertRaises(DdbstError):
                u.body(values, remove=["name"])
        self.assertEqual(c.n, 1)

    def same_error(self, f, g):
        with self.assertRaises(DdbstError) as want:
            g()
        with self.assertRaises(DdbstError) as got:
            f()
        w, e = want.exception, got.exception
        self.assertEqual((e.code, e.name, e.path, e.message),
                         (w.code, w.name, w.path, w.message))

    def test_refusals_are_the_entrys(self):
        cat = self.cat
        key = {"shopId": "s1", "sku": "k1"}
        u = cat.prepare("update", "Product")
        for values, o in [
                (dict(key, status="gone"), {}),      # EVALUE
                (key, {"remove": ["nam"]}),           # no such attribute
                (key, {"remove": ["sku"]}),           # a key facet
                (key, {"add": {"name": 3}}),          # ADD on a string
                (key, {"expect_version": 0}),         # versions start at 1
                ({"shopId": "s1"}, {}),               # which item?
                (dict(key, name="a\0b"), {})]:        # NUL in a value
            self.same_error(lambda: u.body(values, **o),
                            lambda: cat.update("Product", values, **o))
        # a lone surrogate is no UTF-8: Python's own error, both ways
        for f in (lambda: u.body(dict(key, name="a\ud800b")),
                  lambda: cat.update("Product", dict(key, name="a\ud800b"))):
            self.assertRaises(UnicodeEncodeError, f)
        put = self.db.prepare("put", "Project")
        self.same_error(lambda: put.body(dict(project(1), name=7)),
                        lambda: self.db.put("Project", dict(project(1), name=7)))
        q = self.db.prepare("query", "listProjects")
        self.same_error(lambda: q.body({"orgId": "acme"}, cursor="AAAA"),
                        lambda: self.db.query("listProjects",
                                              {"orgId": "acme"},
                                              cursor="AAAA"))
        with self.assertRaises(DdbstError) as e:
            self.db.prepare("put", "Projet")
        self.assertEqual((e.exception.name, e.exception.path,
                          e.exception.message),
                         ("ENOTFOUND", "entity",
                          "the model has no entity Projet; did you mean "
                          "Project?"))
        with self.assertRaises(DdbstError) as e:
            self.db.prepare("query", "getUser")
        self.assertEqual((e.exception.name, e.exception.path),
                         ("EINVAL", "pattern"))
        for op, opts in [("scan", {}), ("put", {"condition": "x"}),
                         ("put", {"return_values": "ALL_NEW"}),
                         ("update", {"if_exists": True}),
                         ("update", {"return_values": "ALL"})]:
            with self.assertRaises(ValueError):
                self.db.prepare(op, "Project", **opts)
        with self.assertRaises(DdbstError):  # limit is a query's
            put.body(project(1), limit=3)

    def test_freed_with_its_session(self):
        s = Ddbst(model_file=SAAS)
        put = s.prepare("put", "Project")
        other = s.prepare("get", "Project")
        other.close()
        other.close()
        with self.assertRaises(ValueError):
            other.body(project(1))
        self.assertTrue(put.body(project(1)).startswith(b'{"TableName"'))
        self.assertEqual(len(s._live), 1)
        s.close()
        self.assertEqual(len(s._live), 0)
        with self.assertRaises(ValueError):
            put.body(project(1))
        put.close()  # after its session: nothing left to free
        with self.assertRaises(ValueError):
            s.prepare("put", "Project")


@unittest.skipUnless(os.environ.get("DDBST_ENDPOINT"),
                     "DDBST_ENDPOINT is not set")
class ThroughBoto3(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import boto3
        import botocore.config
        cls.raw = boto3.client(
            "dynamodb", endpoint_url=os.environ["DDBST_ENDPOINT"],
            region_name=os.environ.get("AWS_REGION", "us-east-1"),
            config=botocore.config.Config(retries={"mode": "standard"}))

    @classmethod
    def tearDownClass(cls):
        getattr(cls.raw, "close", lambda: None)()  # its connections

    def test_update_read_back(self):
        from ddbst.boto3 import Table, send_body
        name = f"prepared-py-{int(time.time())}-{os.getpid()}"
        with Ddbst(model_file=CATALOG, table=name) as db:
            table = Table(db, self.raw)
            table.create_table()
            try:
                key = {"shopId": "s1", "sku": "k1"}
                table.create("Product", dict(
                    key, name="Cap", category="hats", stock=5,
                    tags={"summer"}, releasedAt="2026-03-01T00:00:00Z"),
                    now=NOW)
                u = db.prepare("update", "Product",
                               return_values="UPDATED_NEW")
                r = u.request(dict(key, name="Hat", price=Decimal("19.5")),
                              remove=["category"],
                              add={"stock": 2, "tags": {"sale"}},
                              append={"images": ["front.png"]},
                              expect_version=1, now=NOW)
                out = send_body(self.raw, r.operation, name, r.body)
                self.assertEqual(out["Attributes"]["stock"], {"N": "7"})
                self.assertEqual(out["Attributes"]["version"], {"N": "2"})
                # read back by boto3 alone
                item = self.raw.get_item(TableName=name, Key={
                    "PK": {"S": "SHOP#s1"}, "SK": {"S": "PRODUCT#k1"}},
                    ConsistentRead=True)["Item"]
                self.assertEqual(item["name"], {"S": "Hat"})
                self.assertEqual(item["price"], {"N": "19.5"})
                self.assertEqual(item["stock"], {"N": "7"})
                self.assertEqual(sorted(item["tags"]["SS"]),
                                 ["sale", "summer"])
                self.assertEqual(item["images"], {"L": [{"S": "front.png"}]})
                self.assertEqual(item["version"], {"N": "2"})
                self.assertEqual(item["updatedAt"],
                                 {"S": "2026-03-14T09:00:00.000Z"})
                for gone in ("category", "GSI1PK", "GSI1SK"):
                    self.assertNotIn(gone, item)
                # through the Table (its prepared update): the version it
                # no longer has is refused, explained
                with self.assertRaises(DynamoDBError) as e:
                    table.update("Product", dict(key, name="Old"),
                                 expect_version=1, now=NOW)
                self.assertEqual(e.exception.reason, "version")  # explained
                table.update("Product", dict(key, name="New"),
                             remove=["price"], add={"stock": -1},
                             expect_version=2, now=NOW)
                got = table.get("Product", key, consistent=True)
                self.assertEqual((got["name"], got["stock"], got["version"]),
                                 ("New", 6, 3))
                self.assertNotIn("price", got)
                # a missing item is no update (no upsert)
                with self.assertRaises(DynamoDBError):
                    table.update("Product", {"shopId": "s1", "sku": "none",
                                             "name": "X"}, now=NOW)
                table.delete("Product", key, if_exists=True)
                self.assertIsNone(table.get("Product", key))
            finally:
                table.delete_table()

    def test_query_pages(self):
        from ddbst.boto3 import Table
        name = f"prepared-q-py-{int(time.time())}-{os.getpid()}"
        with Ddbst(model_file=SAAS, table=name, cursor_keys=KEY) as db:
            table = Table(db, self.raw)
            table.create_table()
            try:
                for n in range(5):
                    table.put("Project", project(n), now=NOW)
                seen, cursor = [], None
                for _ in range(4):
                    page = table.query("listProjects", {"orgId": "acme"},
                                       limit=2, cursor=cursor)
                    seen += [x["item"]["projectId"] for x in page["items"]]
                    cursor = page.get("cursor")
                    if not page["hasMore"]:
                        break
                self.assertEqual(seen, ["p-004", "p-003", "p-002", "p-001",
                                        "p-000"])
                # the Table's queries went the prepared way, one per thread
                self.assertIn(("query", "listProjects",
                               (("consistent", False),)),
                              table._local.prepared)
            finally:
                table.delete_table()


if __name__ == "__main__":
    print("ddbst._native:", "yes" if ddbst._session._native is not None
          else "no (ctypes)", file=sys.stderr)
    unittest.main(verbosity=2)
