'use strict';
// The Node half of bindings/python/tests/cross.py: the SDK alone reads
// Python's order byte for byte, then Node writes its own through ddbst.
//   node cross.cjs TABLE
const assert = require('node:assert/strict');
const path = require('node:path');
const { DynamoDBClient, GetItemCommand } = require('@aws-sdk/client-dynamodb');
const { Ddbst } = require('ddbst');
const { Table } = require('ddbst/aws-sdk');

const RECEIPT = new Uint8Array([...Array(256).keys()]);
const TOTAL = '12345678901234567890.123456789';
const QUANTITY = '-9223372036854775808';
const WEIGHTS = ['1E+100', '0.000000000000000000000000000000000000000001'];

async function main(name) {
  const client = new DynamoDBClient({ endpoint: process.env.DDBST_ENDPOINT, region: process.env.AWS_REGION || 'us-east-1' });
  const { Item: item } = await client.send(new GetItemCommand({
    TableName: name, ConsistentRead: true,
    Key: { PK: { S: 'CUSTOMER#from-python' }, SK: { S: 'ORDER#2026-03-14T09:00:00.000Z#01KKNS5TM0JB3X7N5WJJTB8P90' } },
  }));
  assert.deepEqual(item.receipt, { B: RECEIPT });
  assert.deepEqual(item.total, { N: TOTAL });
  assert.deepEqual(item.quantity, { N: QUANTITY });
  assert.equal(item.weights.NS.length, 2);
  console.log("cross.cjs: the SDK for JavaScript reads Python's order byte for byte");
  const db = new Ddbst({ modelFile: path.join(process.env.DDBST_SOURCE_DIR, 'examples', 'shop', 'model.json'), table: name, numbers: 'string' });
  await new Table(db, client).put('Order', {
    customerId: 'from-node', orderId: '01KKNS5TM0JB3X7N5WJJTB8P91', placedAt: '2026-03-14T09:00:00Z',
    total: TOTAL, quantity: QUANTITY, receipt: RECEIPT, weights: WEIGHTS,
  });
  db.close();
}

main(process.argv[2]).catch((e) => { console.error(e); process.exitCode = 1; });
