"""Hydration through the installed ddbst package and boto3, on DynamoDB
Local: tests/integration/models/hydrate.json keys Member in a KEYS_ONLY
index by team and join date; a page of 130 of them is read through the
index and hydrated (BatchGetItem of 100 keys and 30), every full item
checked against the values written, in the index's order, and a member
deleted between the query and the hydration comes back as missing.

    scripts/dynamodb-local build/bindings/python-venv/bin/python \\
        bindings/python/tests/test_hydrate.py
"""

import os
import sys
import time
import unittest
from decimal import Decimal

import boto3
import botocore.config

from ddbst import Ddbst
import ddbst.boto3

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..")
MODEL = os.path.join(ROOT, "tests", "integration", "models", "hydrate.json")
EXIT_SKIP = 77
N = 130


def member(i):
    """Member i as written; its join date is not in memberId order."""
    m = (i * 37) % N
    values = {"orgId": "o1", "memberId": f"m{i:03d}", "teamId": "t1",
              "joinedAt": f"2026-01-01T{m // 60:02d}:{m % 60:02d}:00Z",
              "role": "dev" if i % 3 else "Admin", "name": f"Member {i}",
              "score": Decimal(i * 10 - 7), "tags": {f"t{i % 4}"},
              "profile": {"level": Decimal(i % 9)}}
    if i % 5:
        values["email"] = f"m{i}@example.com"
    return values


db = table = None


def setUpModule():
    global db, table
    if not os.environ.get("DDBST_ENDPOINT"):
        raise unittest.SkipTest("DDBST_ENDPOINT is not set")
    name = f"hydrate-py-{int(time.time())}-{os.getpid()}"
    db = Ddbst(model_file=MODEL, table=name, cursor_keys=os.urandom(32))
    client = boto3.client(
        "dynamodb", endpoint_url=os.environ["DDBST_ENDPOINT"],
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
        config=botocore.config.Config(retries={"mode": "standard",
                                               "max_attempts": 6}))
    table = ddbst.boto3.Table(db, client)
    table.create_table()
    table.batch_write([{"op": "put", "entity": "Member", "values": member(i)}
                       for i in range(N)])


def tearDownModule():
    if table is not None:
        table.delete_table()
    if db is not None:
        db.close()


class Hydrate(unittest.TestCase):
    maxDiff = None

    def order(self):
        """The index's order: by join date."""
        return sorted(range(N), key=lambda i: (i * 37) % N)

    def test_1_keys_only_page_hydrated_in_order(self):
        page = table.query_full("membersOfTeam", {"teamId": "t1"},
                                limit=N, consistent=True)
        self.assertEqual(page["count"], N)
        self.assertEqual(page["missing"], [])
        got = [e["item"] if e else None for e in page["items"]]
        self.assertEqual(got, [member(i) for i in self.order()])
        self.assertTrue(all(e["entity"] == "Member" for e in page["items"]))

    def test_2_the_index_page_says_what_it_lacks(self):
        request = db.query("membersOfTeam", {"teamId": "t1"}, limit=1)
        answer = ddbst.boto3.send(table.client, request)
        page = db.page(answer, pattern="membersOfTeam",
                       values={"teamId": "t1"})
        first = self.order()[0]
        self.assertEqual(page["items"][0]["item"],
                         {k: member(first)[k] for k in
                          ("orgId", "memberId", "teamId", "joinedAt")})
        self.assertEqual(page["items"][0]["notProjected"],
                         ["role", "name", "email", "score", "tags",
                          "profile"])

    def test_3_deleted_since_the_query_is_missing(self):
        request = db.query("membersOfTeam", {"teamId": "t1"}, limit=N)
        answer = ddbst.boto3.send(table.client, request)
        gone = self.order()[101]  # in the second BatchGetItem
        table.delete("Member", {"orgId": "o1",
                                "memberId": f"m{gone:03d}"})
        full = table.hydrate(answer, attributes=["name"])
        self.assertEqual(len(full["requests"]), 2)
        self.assertEqual(full["missing"], [101])
        self.assertEqual(full["pending"], [])
        self.assertIsNone(full["items"][101])
        for k, i in enumerate(self.order()):
            if i == gone:
                continue
            self.assertEqual(full["items"][k]["item"],
                             {"orgId": "o1", "memberId": f"m{i:03d}",
                              "name": f"Member {i}"})


if __name__ == "__main__":
    if not os.environ.get("DDBST_ENDPOINT"):
        print("test_hydrate.py: skipped: DDBST_ENDPOINT is not set",
              file=sys.stderr)
        sys.exit(EXIT_SKIP)
    unittest.main(verbosity=2)
