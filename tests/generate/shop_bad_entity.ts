// expect: TS2345 'Ordr'
import { Ddbst } from 'ddbst';
import type { Shop } from './shop.js';
const db = new Ddbst<Shop>({ modelFile: 'model.json' });
db.get('Ordr', { customerId: 'c1' });
