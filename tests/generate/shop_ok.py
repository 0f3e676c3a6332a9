"""A right program on the generated types (ddbst generate python
examples/shop/model.json > shop_model.py): mypy --strict accepts it, and it
runs against DynamoDB Local through boto3."""

import datetime
import os
from decimal import Decimal

import boto3  # type: ignore[import]  # boto3 ships no type information

import ddbst.boto3
from ddbst import Ddbst, DynamoDBError
from shop_model import OrderItem, ShopTable

db = Ddbst(model_file=os.environ["SHOP_MODEL"], table=os.environ["SHOP_TABLE"],
           cursor_keys=os.environ["SHOP_CURSOR_KEY"])
client = boto3.client("dynamodb", endpoint_url=os.environ["DDBST_ENDPOINT"],
                      region_name="us-east-1")
table = ddbst.boto3.Table(db, client)
shop = ShopTable(table)
table.create_table()
try:
    written: OrderItem = shop.put_order({
        "customerId": "c1", "status": "open",
        "total": Decimal("12345678901234567890.5"), "quantity": 2,
        "receipt": b"\x00\x01\xfe\xff",
        "placedAt": datetime.datetime(2026, 3, 14, 9, tzinfo=datetime.timezone.utc)})
    got = shop.get_order({"customerId": "c1", "placedAt": written["placedAt"],
                          "orderId": written["orderId"]}, consistent=True)
    assert got is not None, "the order was not read back"
    total: Decimal | None = got.get("total")
    assert total == Decimal("12345678901234567890.5"), total
    assert got.get("receipt") == b"\x00\x01\xfe\xff"
    page = shop.query_list_orders({"customerId": "c1"}, limit=10)
    for entry in page["items"]:
        print("listOrders:", entry["item"]["orderId"], entry["item"].get("status"))
    shop.create_customer({"customerId": "k1", "email": "ann@shop.example"})
    try:
        shop.create_customer({"customerId": "k2", "email": "ANN@shop.example"})
        raise AssertionError("a second customer with the same email was created")
    except DynamoDBError as e:
        assert e.reason == "unique", e
        print("refused:", e)
finally:
    table.delete_table()
print("shop_ok.py: ok")
