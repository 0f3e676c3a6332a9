/* expect: quantitty */
#include "shop.h"
int f(const shop *s, ddbst_item *item, ddbst_buf *out) {
  return shop_order_put(s, item, "c1", NULL, NULL, "1",
                        &(shop_order){.quantitty = SHOP_I64(2)}, 0, 0, out, NULL);
}
