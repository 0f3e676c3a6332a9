// A right program on the generated types (ddbst generate typescript
// examples/shop/model.json > shop.ts): tsc --strict compiles it, and it runs
// against DynamoDB Local through the AWS SDK.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Ddbst, DynamoDBError, NumberText } from 'ddbst';
import { Table } from 'ddbst/aws-sdk';
import type { Shop } from './shop.js';

async function main(): Promise<void> {
  const db = new Ddbst<Shop, 'bigint'>({
    modelFile: process.env.SHOP_MODEL, table: process.env.SHOP_TABLE,
    cursorKeys: process.env.SHOP_CURSOR_KEY, numbers: 'bigint',
  });
  const table = new Table(db, new DynamoDBClient({ endpoint: process.env.DDBST_ENDPOINT, region: 'us-east-1' }));
  await table.createTable();
  try {
    const written = await table.put('Order', {
      customerId: 'c1', status: 'open', total: new NumberText('12345678901234567890.5'), quantity: 2n,
      receipt: new Uint8Array([0, 1, 254, 255]), placedAt: new Date(Date.UTC(2026, 2, 14, 9)),
    });
    const orderId: string = written.orderId;
    const got = await table.get('Order', { customerId: 'c1', placedAt: written.placedAt, orderId });
    if (!got) throw new Error('the order was not read back');
    const quantity: bigint | undefined = got.quantity;
    const total: bigint | string | undefined = got.total;
    if (quantity !== 2n || total !== '12345678901234567890.5' || got.receipt?.[3] !== 255) {
      throw new Error(`read back: ${quantity} ${total}`);
    }
    const page = await table.query('listOrders', { customerId: 'c1' }, { limit: 10 });
    for (const entry of page.items) {
      if (entry && entry.entity === 'Order') console.log(`listOrders: ${entry.item.orderId} ${entry.item.status}`);
    }
    await table.create('Customer', { customerId: 'k1', email: 'ann@shop.example' });
    try {
      await table.create('Customer', { customerId: 'k2', email: 'ANN@shop.example' });
      throw new Error('a second customer with the same email was created');
    } catch (e) {
      if (!(e instanceof DynamoDBError) || e.reason !== 'unique') throw e;
      console.log(`refused: ${e.explanation?.trim()}`);
    }
  } finally {
    await table.deleteTable();
  }
  console.log('shop_ok.ts: ok');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
