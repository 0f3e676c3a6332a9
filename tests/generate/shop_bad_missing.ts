// expect: TS2345 'customerId'
import { Ddbst } from 'ddbst';
import type { Shop } from './shop.js';
const db = new Ddbst<Shop>({ modelFile: 'model.json' });
db.query('listOrders', { placedAt: '2026-03' });
