"""ddbst.boto3 against DynamoDB Local, on the shop model
(examples/shop/model.json), whose orders hold every kind of value: what goes
in through ddbst and boto3 is read back byte for byte by boto3 alone, and
what boto3 alone wrote is read back exactly by ddbst.

    scripts/dynamodb-local build/python/venv/bin/python \\
        bindings/python/tests/test_boto3.py

Skipped (exit 77) without DDBST_ENDPOINT.
"""

import base64
import datetime
import os
import sys
import time
import unittest
from decimal import Decimal

import boto3
import botocore.config
import botocore.exceptions

import ddbst
import ddbst.boto3
from ddbst import Ddbst, DdbstError, DynamoDBError
from ddbst.boto3 import Table

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..")
MODEL = os.path.join(ROOT, "examples", "shop", "model.json")
NOW = 1773478800000000  # 2026-03-14T09:00:00Z

# Every byte value, and bytes that are no UTF-8 (nor base64 text)
RECEIPT = bytes(range(256)) + b"\x89PNG\r\n\x1a\n\x00\xff"
# past a double's 17 digits, and DynamoDB's 38 significant digits exactly
TOTAL = Decimal("12345678901234567890.123456789")
WIDE = Decimal("9.9999999999999999999999999999999999999E+125")
TINY = Decimal("-1E-130")
QUANTITY = 9223372036854775807  # an integer attribute is 64-bit


def order(**changes):
    values = {
        "customerId": "c1",
        "orderId": "01KKNS5TM0JB3X7N5WJJTB8P91",
        "placedAt": datetime.datetime(2026, 3, 14, 10, 0, 0, 123000,
                                      tzinfo=datetime.timezone(
                                          datetime.timedelta(hours=1))),
        "status": "open",
        "total": TOTAL,
        "quantity": QUANTITY,
        "receipt": RECEIPT,
        "tags": {"gift", "fragile"},
        "weights": frozenset({Decimal("0.1"), Decimal("2"), WIDE, TINY}),
        "lines": [{"sku": "A-1", "price": Decimal("19.99"), "n": 2}],
        "address": {"city": "Oslo", "zip": "0150"},
    }
    values.update(changes)
    return values


db = table = raw = name = None


def setUpModule():
    global db, table, raw, name
    if not os.environ.get("DDBST_ENDPOINT"):
        raise unittest.SkipTest("DDBST_ENDPOINT is not set")
    raw = boto3.client(
        "dynamodb", endpoint_url=os.environ["DDBST_ENDPOINT"],
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
        config=botocore.config.Config(retries={"mode": "standard"}))
    name = f"shop-py-{int(time.time())}-{os.getpid()}"
    db = Ddbst(model_file=MODEL, table=name, cursor_keys=os.urandom(32))
    table = Table(db, raw)
    table.create_table()


def tearDownModule():
    if table is not None:
        table.delete_table()
        db.close()


def raw_item(pk, sk):
    return raw.get_item(TableName=name, Key={"PK": {"S": pk},
                                             "SK": {"S": sk}},
                        ConsistentRead=True)["Item"]


class Package(unittest.TestCase):
    def test_installed_with_its_library(self):
        # the wheel carries libddbst: nothing in the environment says where
        self.assertNotIn("DDBST_LIBRARY", os.environ)
        self.assertEqual(ddbst.library_path(),
                         os.path.join(os.path.dirname(ddbst.__file__),
                                      "libddbst.so.0"))
        self.assertEqual(db.version(), ddbst.__version__)
        self.assertNotIn(os.path.join(ROOT, "bindings"),
                         os.path.dirname(ddbst.__file__))


class Values(unittest.TestCase):
    maxDiff = None

    def test_the_c_path_writes_what_the_python_path_writes(self):
        from ddbst import _session, _values
        if os.environ.get("DDBST_NATIVE") == "0":
            self.assertIsNone(db._native)
            self.skipTest("DDBST_NATIVE=0: the ctypes path alone")
        self.assertIsNotNone(db._native, "the wheel has no ddbst._native")
        native = _session._native
        values = [
            "", "plain", 'quote " backslash \\ slash /', "\x01\x1f\x7f", "é😀\u2028",
            0, -1, 2 ** 63, -(10 ** 40), True, False, None, 0.1, -2.5e-300,
            Decimal("12345678901234567890.123456789"), Decimal("1E+100"),
            Decimal("-0.000001"), Decimal("-0"),
            b"", b"\x00\xff", bytearray(b"abc"), memoryview(b"abcd"),
            {"b", "a"}, frozenset({Decimal("2"), 1}), {b"\x01", b"\x00"},
            datetime.datetime(2026, 3, 14, 10, tzinfo=datetime.timezone.utc),
            [1, [2, {"k": (3, 4)}]], {"nested": {"deeper": ["x"]}},
        ]
        for v in values:
            with self.subTest(value=v):
                self.assertEqual(_values.decode(native.encode({"v": v})),
                                 _values.decode(_values.encode({"v": v})))
        for bad in (float("nan"), Decimal("Infinity"), object(),
                    datetime.datetime(2026, 1, 1), {1: "int key"}):
            with self.subTest(bad=bad):
                with self.assertRaises((TypeError, ValueError)):
                    native.encode({"v": bad})

    def test_binary_and_numbers_as_boto3_reads_them(self):
        written = table.put("Order", order(), now=NOW)
        sk = "ORDER#2026-03-14T09:00:00.123Z#01KKNS5TM0JB3X7N5WJJTB8P91"
        stored = raw_item("CUSTOMER#c1", sk)
        # boto3 alone, no ddbst: the bytes are the caller's, not base64 text
        self.assertEqual(stored["receipt"], {"B": RECEIPT})
        self.assertEqual(stored["total"],
                         {"N": "12345678901234567890.123456789"})
        self.assertEqual(stored["quantity"], {"N": "9223372036854775807"})
        self.assertEqual(sorted(Decimal(x) for x in stored["weights"]["NS"]),
                         sorted([Decimal("0.1"), Decimal("2"), WIDE, TINY]))
        self.assertEqual(sorted(stored["tags"]["SS"]), ["fragile", "gift"])
        self.assertEqual(stored["lines"], {"L": [{"M": {
            "sku": {"S": "A-1"}, "price": {"N": "19.99"},
            "n": {"N": "2"}}}]})
        self.assertEqual(stored["placedAt"], {"S": "2026-03-14T09:00:00.123Z"})
        # and what put() answered is what a get reads back
        self.assertEqual(written["receipt"], RECEIPT)
        got = table.get("Order", {"customerId": "c1", "placedAt":
                                  "2026-03-14T09:00:00.123Z",
                                  "orderId": "01KKNS5TM0JB3X7N5WJJTB8P91"},
                        consistent=True)
        self.assertEqual(got, written)
        self.assertEqual(type(got["total"]), Decimal)
        self.assertEqual(got["total"], TOTAL)
        self.assertEqual(str(got["total"]), "12345678901234567890.123456789")
        self.assertEqual(type(got["quantity"]), int)
        self.assertEqual(got["quantity"], QUANTITY)
        self.assertEqual(type(got["receipt"]), bytes)
        self.assertEqual(got["tags"], {"gift", "fragile"})
        self.assertEqual(got["weights"], {Decimal("0.1"), Decimal("2"), WIDE,
                                          TINY})
        self.assertEqual(got["lines"], [{"sku": "A-1",
                                         "price": Decimal("19.99"), "n": 2}])

    def test_what_boto3_wrote_ddbst_reads_exactly(self):
        receipt = b"\x00\x01\xfe\xff" * 100
        raw.put_item(TableName=name, Item={
            "PK": {"S": "CUSTOMER#c2"},
            "SK": {"S": "ORDER#2026-01-01T00:00:00.000Z#01KKNS5TM0JB3X7N5WJJTB8P92"},
            "_type": {"S": "Order"},
            "customerId": {"S": "c2"},
            "orderId": {"S": "01KKNS5TM0JB3X7N5WJJTB8P92"},
            "placedAt": {"S": "2026-01-01T00:00:00.000Z"},
            "total": {"N": "0.00000000000000000000000000000000000001"},
            "quantity": {"N": "-9223372036854775808"},
            "receipt": {"B": receipt},
            "weights": {"NS": ["1E+100", "3"]},
        })
        page = table.query("listOrders", {"customerId": "c2"})
        self.assertEqual(page["count"], 1)
        item = page["items"][0]["item"]
        self.assertEqual(item["receipt"], receipt)
        self.assertEqual(item["total"], Decimal("1E-38"))
        self.assertEqual(item["quantity"], -9223372036854775808)
        self.assertEqual(item["weights"], {Decimal("1E+100"), Decimal(3)})

    def test_update_sets_binary_and_adds_to_an_integer(self):
        # SET of binary in ExpressionAttributeValues goes to boto3 as bytes too
        key = {"customerId": "c3", "placedAt": "2026-02-02T00:00:00.000Z",
               "orderId": "01KKNS5TM0JB3X7N5WJJTB8P93"}
        table.put("Order", order(**key, receipt=b"\xff" * 3), now=NOW)
        table.update("Order", key, set={"receipt": b"\x00\x00\x01",
                                        "total": Decimal("-0.5")},
                     add={"quantity": -7}, now=NOW)
        stored = raw_item("CUSTOMER#c3",
                          "ORDER#2026-02-02T00:00:00.000Z#"
                          "01KKNS5TM0JB3X7N5WJJTB8P93")
        self.assertEqual(stored["receipt"], {"B": b"\x00\x00\x01"})
        self.assertEqual(stored["total"], {"N": "-0.5"})
        self.assertEqual(stored["quantity"], {"N": "9223372036854775800"})

    def test_refused_values(self):
        with self.assertRaises(ValueError):  # which instant?
            db.put("Order", order(placedAt=datetime.datetime(2026, 1, 1)))
        with self.assertRaises(TypeError):
            db.put("Order", order(address=object()))
        with self.assertRaises(DdbstError) as cm:  # the entry's own check
            db.put("Order", order(total="twelve"))
        self.assertEqual((cm.exception.name, cm.exception.path),
                         ("EVALUE", "Order.total"))
        with self.assertRaises(ValueError):
            db.put("Order", order(total=Decimal("NaN")))

    def test_a_string_that_looks_like_a_number_mark_stays_a_string(self):
        # Decimals are written through a mark; a caller's string that looks
        # like one is never turned into a number
        from ddbst import _values
        mark = "\x00\x01ddbst-number:42"
        text = _values.encode({"a": [Decimal("1.5"), mark, Decimal("7")]})
        self.assertEqual(_values.decode(text), {"a": [Decimal("1.5"), mark, 7]})

    def test_float_is_its_repr(self):
        request = db.put("Order", order(total=0.1), now=NOW)
        self.assertEqual(request["body"]["Item"]["total"], {"N": "0.1"})


class Wire(unittest.TestCase):
    def test_boto3_sends_ddbsts_bytes(self):
        # what went over the wire, watched at botocore's before-send (the
        # request still goes to DynamoDB Local)
        sent = []

        def watch(request, **_):
            sent.append(bytes(request.body))

        raw.meta.events.register("before-send.dynamodb.PutItem", watch)
        try:
            values = order(customerId="c7", orderId="01KKNS5TM0JB3X7N5WJJTB8P97")
            table.put("Order", values, now=NOW)
        finally:
            raw.meta.events.unregister("before-send.dynamodb.PutItem", watch)
        _, body = db.build(ddbst.build_request("put", entity="Order",
                                               values=values, now=NOW))
        self.assertEqual(sent, [body])

    def test_serialize_boto3_gives_the_same_items(self):
        slow = Table(db, raw, serialize="boto3")
        key = {"customerId": "c8", "placedAt": "2026-05-05T00:00:00Z",
               "orderId": "01KKNS5TM0JB3X7N5WJJTB8P98"}
        written = slow.put("Order", order(**key), now=NOW)
        self.assertEqual(slow.get("Order", key, consistent=True), written)
        self.assertEqual(table.get("Order", key, consistent=True), written)
        self.assertEqual(slow.query("listOrders", {"customerId": "c8"}),
                         table.query("listOrders", {"customerId": "c8"}))


class Pages(unittest.TestCase):
    def test_sealed_cursors_through_boto3(self):
        for i in range(7):
            table.put("Order", order(customerId="c4", orderId=None,
                                     placedAt=f"2026-03-0{i + 1}T00:00:00Z",
                                     receipt=bytes([i]) * (i + 1)), now=NOW)
        pages, cursor = [], None
        while True:
            page = table.query("listOrders", {"customerId": "c4"}, limit=3,
                               cursor=cursor)
            pages.append([e["item"]["receipt"] for e in page["items"]])
            if not page["hasMore"]:
                break
            cursor = page["cursor"]
            self.assertRegex(cursor, r"^[A-Za-z0-9_-]+$")
            # sealed: no key of the table in it, in any encoding
            opened = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            # (six bytes or more: a random cursor holds two by chance)
            for secret in (b"CUSTOMER#c4", b"ORDER#2026"):
                self.assertNotIn(secret, opened)
        # newest first (the pattern's order), 3 a page
        self.assertEqual(pages, [[bytes([6]) * 7, bytes([5]) * 6,
                                  bytes([4]) * 5],
                                 [bytes([3]) * 4, bytes([2]) * 3,
                                  bytes([1]) * 2],
                                 [bytes([0])]])
        everything = list(table.query_all("listOrders", {"customerId": "c4"},
                                          limit=2))
        self.assertEqual(len(everything), 7)
        # a cursor of c4's, given for another customer, is refused
        first = table.query("listOrders", {"customerId": "c4"}, limit=3)
        with self.assertRaises(DdbstError) as cm:
            table.query("listOrders", {"customerId": "c5"}, limit=3,
                        cursor=first["cursor"])
        self.assertEqual((cm.exception.name, cm.exception.path),
                         ("ECURSOR", "cursor"))

    def test_batches_and_transactions(self):
        keys = [{"customerId": "c6", "placedAt": f"2026-04-0{i}T00:00:00Z",
                 "orderId": f"01KKNS5TM0JB3X7N5WJJTB8P{i}A"}
                for i in range(1, 10)]
        table.batch_write([{"op": "put", "entity": "Order",
                            "values": order(**k, receipt=bytes([i]))}
                           for i, k in enumerate(keys)], now=NOW)
        got = table.batch_get([{"op": "get", "entity": "Order", "values": k}
                               for k in keys])
        self.assertEqual(sorted(e["item"]["receipt"] for e in got),
                         [bytes([i]) for i in range(9)])
        slots = table.transact_get(
            [{"op": "get", "entity": "Order", "values": keys[0]},
             {"op": "get", "entity": "Order", "values":
              dict(keys[0], orderId="01KKNS5TM0JB3X7N5WJJTB8PZZ")}])
        self.assertEqual(slots[0]["item"]["receipt"], b"\x00")
        self.assertIsNone(slots[1])


class Refusals(unittest.TestCase):
    def test_a_refused_create_is_explained(self):
        table.create("Customer", {"customerId": "k1",
                                  "email": "Ann@Shop.example"})
        with self.assertRaises(DynamoDBError) as cm:
            table.create("Customer", {"customerId": "k2",
                                      "email": "ANN@shop.EXAMPLE"})
        e = cm.exception
        self.assertEqual(e.kind, "TransactionCanceled")
        self.assertEqual(e.reason, "unique")
        self.assertIn("unique constraint Customer.email", e.explanation)
        self.assertIn("EMAIL#ann@shop.example", str(e))
        self.assertIsInstance(e.__cause__, botocore.exceptions.ClientError)
        self.assertIsNone(table.get("Customer", {"customerId": "k2"},
                                    consistent=True))
        # and the existing one, created again: "exists"
        with self.assertRaises(DynamoDBError) as cm:
            table.create("Customer", {"customerId": "k1",
                                      "email": "other@shop.example"})
        self.assertEqual(cm.exception.reason, "exists")

    def test_explain_takes_boto3s_client_error(self):
        request = ddbst.build_request("update", entity="Order", values={
            "customerId": "nobody", "placedAt": "2026-01-01T00:00:00Z",
            "orderId": "01KKNS5TM0JB3X7N5WJJTB8P94"},
            set={"status": "paid"})
        try:
            ddbst.boto3.send(raw, db.call(request))
        except botocore.exceptions.ClientError as e:
            error = e
        else:
            self.fail("an update of a missing order went through")
        self.assertEqual(db.explain(request, error)["kind"], "missing")

    def test_other_errors_are_dynamodb_errors(self):
        with Ddbst(model_file=MODEL, table=name + "-missing") as other:
            with self.assertRaises(DynamoDBError) as cm:
                Table(other, raw).get("Customer", {"customerId": "k1"})
        self.assertEqual(cm.exception.kind, "ResourceNotFound")
        self.assertFalse(cm.exception.retryable)


SETTINGS = os.path.join(ROOT, "docs", "examples", "orders-settings.json")


class TableRequests(unittest.TestCase):
    """The table's requests through boto3 on DynamoDB Local: a table with
    every setting of docs/examples/orders-settings.json, read back."""

    def test_settings_describe_protect_delete(self):
        # botocore checks a request against its own copy of the API before
        # sending: one older than the settings (Debian 12's) refuses them
        # client-side, whatever ddbst builds
        known = raw.meta.service_model.operation_model(
            "CreateTable").input_shape.members
        missing = [m for m in ("OnDemandThroughput", "WarmThroughput",
                               "DeletionProtectionEnabled", "ResourcePolicy")
                   if m not in known]
        if missing:
            self.skipTest(f"botocore {botocore.__version__} does not know "
                          f"CreateTable's {', '.join(missing)}")
        own = f"{name}-settings"
        with Ddbst(model_file=SETTINGS, table=own) as sdb:
            t = Table(sdb, raw)
            t.create_table()
            described = t.describe_table()
            self.assertEqual(described["TableName"], own)
            self.assertTrue(described["DeletionProtectionEnabled"])
            self.assertEqual(
                described["GlobalSecondaryIndexes"][0]["OnDemandThroughput"],
                {"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": -1})
            self.assertEqual(sdb.update_contributor_insights("GSI1")["body"],
                             {"TableName": own, "IndexName": "GSI1",
                              "ContributorInsightsAction": "ENABLE"})
            self.assertEqual(
                sdb.update_continuous_backups()["body"]
                ["PointInTimeRecoverySpecification"],
                {"PointInTimeRecoveryEnabled": True,
                 "RecoveryPeriodInDays": 14})
            with self.assertRaises(DdbstError) as cm:
                sdb.update_table(remove_index="GSI1")
            self.assertEqual(cm.exception.path, "index")
            self.assertIn("the model still declares GSI1", cm.exception.message)
            # protected: refused until the protection is off
            with self.assertRaises(DynamoDBError) as refused:
                t.delete_table()
            self.assertEqual(refused.exception.kind, "Validation")
            self.assertIn("protected against deletion",
                          refused.exception.dynamodb_message)
            raw.update_table(TableName=own, DeletionProtectionEnabled=False)
            t.delete_table()
            with self.assertRaises(DynamoDBError) as gone:
                t.describe_table()
            self.assertEqual(gone.exception.kind, "ResourceNotFound")

    def test_time_to_live_on_and_off(self):
        # the SaaS model expires by expiresAt; the shop's has no TTL
        own = f"{name}-ttl"
        saas = os.path.join(ROOT, "examples", "saas", "model.json")
        with Ddbst(model_file=saas, table=own) as v1, \
                Ddbst(model_file=MODEL, table=own) as v2:
            t1 = Table(v1, raw)
            t1.create_table()
            t1.send(v1.update_time_to_live())
            self.assertEqual(
                raw.describe_time_to_live(TableName=own)
                ["TimeToLiveDescription"],
                {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"})
            with self.assertRaises(DdbstError) as cm:
                v1.update_time_to_live(disable="expiresAt")
            self.assertEqual(cm.exception.path, "disable")
            Table(v2, raw).send(v2.update_time_to_live(disable="expiresAt"))
            self.assertEqual(
                raw.describe_time_to_live(TableName=own)
                ["TimeToLiveDescription"], {"TimeToLiveStatus": "DISABLED"})
            t1.delete_table()

    def test_an_index_added_and_removed(self):
        # the shop model's table, without its index first
        import json
        with open(MODEL, encoding="utf-8") as fh:
            full = json.load(fh)
        index = next(iter(full["table"]["indexes"]))
        without = json.loads(json.dumps(full))
        del without["table"]["indexes"][index]
        for entity in without["entities"].values():
            entity.get("indexes", {}).pop(index, None)
            if entity.get("indexes") == {}:
                del entity["indexes"]
        without["patterns"] = {
            k: p for k, p in without["patterns"].items()
            if p.get("index") != index}
        own = f"{name}-idx"
        with Ddbst(model=json.dumps(without), table=own) as v1, \
                Ddbst(model=json.dumps(full), table=own) as v2:
            t1, t2 = Table(v1, raw), Table(v2, raw)
            t1.create_table()
            self.assertNotIn("GlobalSecondaryIndexes", t1.describe_table())
            t2.add_index(index)
            self.assertEqual(
                [i["IndexStatus"] for i in
                 t2.describe_table()["GlobalSecondaryIndexes"]], ["ACTIVE"])
            t1.remove_index(index)
            self.assertNotIn("GlobalSecondaryIndexes", t1.describe_table())
            t1.delete_table()


if __name__ == "__main__":
    if not os.environ.get("DDBST_ENDPOINT"):
        print("test_boto3.py: skipped: DDBST_ENDPOINT is not set",
              file=sys.stderr)
        sys.exit(77)
    unittest.main(verbosity=2)
