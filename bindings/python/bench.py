"""Per-call cost of a PutItem (and an UpdateItem) through boto3: ddbst's
adapter against the same request built by hand in pure Python, on the same boto3 client, without
the network (botocore's before-send event answers {} at once, so the
figures are what happens in this process: building, validating,
serializing, signing, reading the answer).

    build/bindings/python-venv/bin/python bindings/python/bench.py

docs/performance.md ("Python") states the figures and the command. Not a
test: timings on a shared machine are not verdicts.
"""

import os
import sys
import timeit

# the installed package, not the source beside this file (which has no
# library of its own)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import boto3  # noqa: E402
from botocore.awsrequest import AWSResponse  # noqa: E402

from ddbst import Ddbst, _values  # noqa: E402
from ddbst.boto3 import Table  # noqa: E402

ROOT = os.path.join(HERE, "..", "..")
MODEL = os.path.join(ROOT, "examples", "saas", "model.json")
NOW = 1773478800000000

VALUES = {"orgId": "acme", "projectId": "p1", "name": "Website",
          "status": "active", "createdAt": "2026-03-14T09:00:00Z"}


def by_hand(v):
    """What a service writes without ddbst: keys concatenated, the sparse
    GSI2 keys when status is set, every value typed for boto3, and the
    checks that keep a value from forging another key."""
    for facet in ("orgId", "projectId"):
        if "#" in v[facet] or not v[facet]:
            raise ValueError(f"{facet}: bad facet")
    item = {
        "PK": {"S": "ORG#" + v["orgId"]},
        "SK": {"S": f"PROJECT#{v['createdAt']}#{v['projectId']}"},
        "_type": {"S": "Project"},
        "orgId": {"S": v["orgId"]},
        "projectId": {"S": v["projectId"]},
        "createdAt": {"S": v["createdAt"]},
        "name": {"S": v["name"]},
    }
    if v.get("status") is not None:
        if v["status"] not in ("active", "archived"):
            raise ValueError("status")
        item["status"] = {"S": v["status"]}
        item["GSI2PK"] = {"S": "STATUS#" + v["status"]}
        item["GSI2SK"] = {"S": v["createdAt"]}
    return {"TableName": "saas-api-dev", "Item": item}


# update_project_status's: the key's facets, status SET (GSI2 rewritten)
UPDATE = {"orgId": "acme", "projectId": "p1",
          "createdAt": "2026-03-14T09:00:00Z", "status": "archived"}


def update_by_hand(v):
    """The same UpdateItem without ddbst: status SET and GSI2's keys with
    it, conditional on the item existing."""
    if v["status"] not in ("active", "archived"):
        raise ValueError("status")
    for facet in ("orgId", "projectId"):
        if "#" in v[facet] or not v[facet]:
            raise ValueError(f"{facet}: bad facet")
    return {
        "TableName": "saas-api-dev",
        "Key": {"PK": {"S": "ORG#" + v["orgId"]},
                "SK": {"S": f"PROJECT#{v['createdAt']}#{v['projectId']}"}},
        "UpdateExpression": "SET #n0 = :v0, #n1 = :v1, #n2 = :v2",
        "ConditionExpression": "attribute_exists(#n3)",
        "ExpressionAttributeNames": {"#n0": "status", "#n1": "GSI2PK",
                                     "#n2": "GSI2SK", "#n3": "PK"},
        "ExpressionAttributeValues": {
            ":v0": {"S": v["status"]}, ":v1": {"S": "STATUS#" + v["status"]},
            ":v2": {"S": v["createdAt"]}},
    }


class _Raw:
    def stream(self, **_):
        yield b"{}"


def _answer(request, **_):
    return AWSResponse(request.url, 200, {}, _Raw())


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    client = boto3.client("dynamodb", region_name="us-east-1",
                          endpoint_url="http://127.0.0.1:9",
                          aws_access_key_id="bench",
                          aws_secret_access_key="bench")
    client.meta.events.register("before-send.dynamodb", _answer)
    db = Ddbst(model_file=MODEL)
    table = Table(db, client)
    # the two build the same item
    built = _values.body_to_sdk(db.put("Project", VALUES, now=NOW)["body"])
    assert built == by_hand(VALUES), (built, by_hand(VALUES))

    cases = [
        ("building the kwargs: by hand", lambda: by_hand(VALUES)),
        ("building the kwargs: ddbst", lambda: _values.body_to_sdk(
            db.put("Project", VALUES, now=NOW)["body"])),
        ("building the body's bytes: ddbst (Ddbst.build)",
         lambda: db.build(request)),
        ("  the same, prepared (Prepared.body)",
         lambda: prepared_put.body(VALUES, now=NOW)),
        ("an UpdateItem's bytes: Ddbst.build",
         lambda: db.build(update_request)),
        ("  the same, prepared (Prepared.body)",
         lambda: prepared_update.body(UPDATE, now=NOW)),
        ("put_item through boto3: by hand",
         lambda: client.put_item(**by_hand(VALUES))),
        ("put_item through boto3: ddbst.boto3.Table.put",
         lambda: table.put("Project", VALUES, now=NOW)),
        ("  the same, serialize='boto3'",
         lambda: slow.put("Project", VALUES, now=NOW)),
        ("update_item through boto3: by hand",
         lambda: client.update_item(**update_by_hand(UPDATE))),
        ("update_item through boto3: ddbst.boto3.Table.update (prepared)",
         lambda: table.update("Project", UPDATE, now=NOW)),
    ]
    slow = Table(db, client, serialize="boto3")
    request = {"op": "put", "entity": "Project", "values": VALUES, "now": NOW}
    update_request = {"op": "update", "entity": "Project", "values": UPDATE,
                      "now": NOW}
    prepared_put = db.prepare("put", "Project")
    prepared_update = db.prepare("update", "Project")
    assert prepared_put.body(VALUES, now=NOW) == db.build(request)[1]
    assert prepared_update.body(UPDATE, now=NOW) == \
        db.build(update_request)[1]
    # the two build the same update
    assert _values.body_to_sdk(db.update("Project", UPDATE, now=NOW)["body"]) \
        == update_by_hand(UPDATE)
    results = {}
    for label, fn in cases:
        best = min(timeit.repeat(fn, number=n, repeat=5)) / n
        results[label] = best
        print(f"{label:64s} {best * 1e6:8.2f} us a call")
    print("ddbst._native:", "yes" if db._native is not None else "no (ctypes)")
    hand = results["put_item through boto3: by hand"]
    ours = results["put_item through boto3: ddbst.boto3.Table.put"]
    print(f"through boto3, ddbst / by hand: {ours / hand:.2f}")
    hand = results["update_item through boto3: by hand"]
    ours = results["update_item through boto3: ddbst.boto3.Table.update (prepared)"]
    print(f"update through boto3, ddbst / by hand: {ours / hand:.2f}")
    db.close()


if __name__ == "__main__":
    main()
