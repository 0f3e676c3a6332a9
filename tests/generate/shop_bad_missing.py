# expect: "customerId"
from shop_model import ShopTable


def f(shop: ShopTable) -> None:
    shop.query_list_orders({"placedAt": "2026-03"})
