# expect: "quantitty"
from decimal import Decimal
from shop_model import ShopTable


def f(shop: ShopTable) -> None:
    shop.put_order({"customerId": "c1", "total": Decimal(1), "quantitty": 2})
