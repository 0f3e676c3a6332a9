"""Binary and big numbers across the two SDKs: what Python writes through
ddbst and boto3, the AWS SDK for JavaScript reads byte for byte
(bindings/node/test/cross.cjs), and what Node writes through ddbst and the
SDK, boto3 reads back the same way.

    cross.py write TABLE     create the table, write Python's order
    cross.py check TABLE     read Node's order with boto3 alone, delete the table
"""

import os
import sys
from decimal import Decimal

import boto3

from ddbst import Ddbst
from ddbst.boto3 import Table

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
MODEL = os.path.join(ROOT, "examples", "shop", "model.json")

# the same values on both sides (cross.cjs has its copy)
RECEIPT = bytes(range(256))
TOTAL = "12345678901234567890.123456789"
QUANTITY = "-9223372036854775808"
WEIGHTS = {"1E+100", "0.000000000000000000000000000000000000000001"}


def main(step, name):
    client = boto3.client("dynamodb", endpoint_url=os.environ["DDBST_ENDPOINT"],
                          region_name=os.environ.get("AWS_REGION", "us-east-1"))
    db = Ddbst(model_file=MODEL, table=name)
    table = Table(db, client)
    if step == "write":
        table.create_table()
        table.put("Order", {
            "customerId": "from-python", "orderId": "01KKNS5TM0JB3X7N5WJJTB8P90",
            "placedAt": "2026-03-14T09:00:00Z", "total": Decimal(TOTAL),
            "quantity": int(QUANTITY), "receipt": RECEIPT,
            "weights": {Decimal(w) for w in WEIGHTS}})
        return 0
    try:
        item = client.get_item(TableName=name, ConsistentRead=True, Key={
            "PK": {"S": "CUSTOMER#from-node"},
            "SK": {"S": "ORDER#2026-03-14T09:00:00.000Z#01KKNS5TM0JB3X7N5WJJTB8P91"}})["Item"]
        assert item["receipt"] == {"B": RECEIPT}, item["receipt"]
        assert item["total"] == {"N": TOTAL}, item["total"]
        assert item["quantity"] == {"N": QUANTITY}, item["quantity"]
        assert {Decimal(x) for x in item["weights"]["NS"]} == \
            {Decimal(w) for w in WEIGHTS}, item["weights"]
        print("cross.py: boto3 reads Node's order byte for byte")
        return 0
    finally:
        table.delete_table()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
