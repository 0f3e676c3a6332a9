/* expect: shop_list_orders_query */
#include "shop.h"
int f(const shop *s, ddbst_item *item, ddbst_buf *out) {
  /* no customerId: the partition value is a parameter */
  return shop_list_orders_query(s, item, NULL, out, NULL);
}
