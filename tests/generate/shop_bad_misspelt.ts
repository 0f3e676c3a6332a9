// expect: TS2561 'quantitty'
import { Ddbst } from 'ddbst';
import type { Shop } from './shop.js';
const db = new Ddbst<Shop>({ modelFile: 'model.json' });
db.put('Order', { customerId: 'c1', total: 1, quantitty: 2 });
