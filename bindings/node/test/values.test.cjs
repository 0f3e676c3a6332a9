'use strict';
// ddbst/aws-sdk against DynamoDB Local on the shop model
// (examples/shop/model.json), whose orders hold every kind of value: what
// goes in through ddbst and the SDK is read back byte for byte by the SDK
// alone, and what the SDK alone wrote is read back exactly by ddbst, in
// each of the three number modes.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const {
  DynamoDBClient, GetItemCommand, PutItemCommand,
} = require('@aws-sdk/client-dynamodb');
const { Ddbst, DdbstError, DynamoDBError, NumberText } = require('ddbst');
const { Table } = require('ddbst/aws-sdk');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const modelFile = path.join(root, 'examples', 'shop', 'model.json');
const name = `shop-node-${Date.now()}-${process.pid}`;
const NOW = 1773478800000000;
const skip = process.env.DDBST_ENDPOINT ? false : 'DDBST_ENDPOINT is not set';

const RECEIPT = new Uint8Array([...Array(256).keys(), 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0xff]);
const TOTAL = '12345678901234567890.123456789';
const QUANTITY = 9223372036854775807n;

const client = skip ? null : new DynamoDBClient({
  endpoint: process.env.DDBST_ENDPOINT, region: process.env.AWS_REGION || 'us-east-1',
});
const cursorKeys = crypto.randomBytes(32).toString('hex');
let exact; // numbers: 'bigint'
let table;

const key = (customerId, placedAt, orderId) => ({ customerId, placedAt, orderId });
const order = (k, more = {}) => ({
  ...k, status: 'open', total: TOTAL, quantity: QUANTITY, receipt: RECEIPT,
  tags: new Set(['gift', 'fragile']), weights: new Set(['0.1', 2, '9.9999999999999999999999999999999999999E+125']),
  lines: [{ sku: 'A-1', price: new NumberText('19.99'), n: 2 }], address: { city: 'Oslo', zip: '0150' }, ...more,
});

async function rawItem(pk, sk) {
  const out = await client.send(new GetItemCommand({
    TableName: name, Key: { PK: { S: pk }, SK: { S: sk } }, ConsistentRead: true,
  }));
  return out.Item;
}

describe('ddbst/aws-sdk: exact values through the AWS SDK', { skip }, () => {
  before(async () => {
    exact = new Ddbst({ modelFile, table: name, cursorKeys, numbers: 'bigint' });
    table = new Table(exact, client);
    await table.createTable();
  });
  after(async () => {
    if (table) {
      await table.deleteTable();
      exact.close();
    }
  });

  it('binary and big numbers, as the SDK alone reads them', async () => {
    const k = key('c1', '2026-03-14T10:00:00.123+01:00', '01KKNS5TM0JB3X7N5WJJTB8P91');
    const written = await table.put('Order', order(k), { now: NOW });
    const stored = await rawItem('CUSTOMER#c1', 'ORDER#2026-03-14T09:00:00.123Z#01KKNS5TM0JB3X7N5WJJTB8P91');
    // the caller's bytes, not their base64 text
    assert.deepEqual(stored.receipt, { B: RECEIPT });
    assert.deepEqual(stored.total, { N: TOTAL });
    assert.deepEqual(stored.quantity, { N: '9223372036854775807' });
    assert.deepEqual(stored.tags.SS.sort(), ['fragile', 'gift']);
    assert.deepEqual(stored.lines, { L: [{ M: { sku: { S: 'A-1' }, price: { N: '19.99' }, n: { N: '2' } } }] });
    assert.deepEqual(stored.placedAt, { S: '2026-03-14T09:00:00.123Z' });

    const got = await table.get('Order', { ...k, placedAt: '2026-03-14T09:00:00.123Z' }, { consistent: true });
    assert.deepEqual({ ...got, weights: null }, { ...written, weights: null });
    assert.ok(got.receipt instanceof Uint8Array);
    assert.deepEqual(got.receipt, RECEIPT);
    assert.equal(got.total, TOTAL);              // not an integer: its text
    assert.equal(got.quantity, QUANTITY);        // an integer: bigint
    // DynamoDB gives 9.99...9E+125 back as its 126 digits: an integer, so a bigint
    assert.deepEqual(got.weights, new Set([2n, '0.1', 99999999999999999999999999999999999999n * 10n ** 88n]));
    assert.deepEqual(got.tags, new Set(['gift', 'fragile']));
  });

  it('what the SDK alone wrote, read exactly in each number mode', async () => {
    const receipt = new Uint8Array(400).map((_, i) => (i * 7) & 0xff);
    await client.send(new PutItemCommand({
      TableName: name,
      Item: {
        PK: { S: 'CUSTOMER#c2' }, SK: { S: 'ORDER#2026-01-01T00:00:00.000Z#01KKNS5TM0JB3X7N5WJJTB8P92' },
        _type: { S: 'Order' }, customerId: { S: 'c2' }, orderId: { S: '01KKNS5TM0JB3X7N5WJJTB8P92' },
        placedAt: { S: '2026-01-01T00:00:00.000Z' },
        total: { N: '0.00000000000000000000000000000000000001' },
        quantity: { N: '-9223372036854775808' }, receipt: { B: receipt },
      },
    }));
    const page = await table.query('listOrders', { customerId: 'c2' });
    assert.equal(page.count, 1);
    assert.deepEqual(page.items[0].item.receipt, receipt);
    assert.equal(page.items[0].item.quantity, -9223372036854775808n);
    assert.equal(page.items[0].item.total, '0.00000000000000000000000000000000000001');

    const strings = new Ddbst({ modelFile, table: name, numbers: 'string' });
    const plain = new Ddbst({ modelFile, table: name });
    try {
      const asString = await new Table(strings, client).get('Order',
        key('c2', '2026-01-01T00:00:00.000Z', '01KKNS5TM0JB3X7N5WJJTB8P92'));
      assert.equal(asString.quantity, '-9223372036854775808');
      // 'number' refuses what a double would round, never rounds it
      await assert.rejects(new Table(plain, client).get('Order',
        key('c2', '2026-01-01T00:00:00.000Z', '01KKNS5TM0JB3X7N5WJJTB8P92')),
      (e) => e instanceof RangeError && /item\.quantity/.test(e.message));
      const small = await new Table(plain, client).put('Order',
        order(key('c3', '2026-01-02T00:00:00Z', '01KKNS5TM0JB3X7N5WJJTB8P93'),
              { total: 19.99, quantity: 3, weights: undefined }), { now: NOW });
      assert.equal(small.total, 19.99);
      assert.equal(small.quantity, 3);
    } finally {
      strings.close();
      plain.close();
    }
  });

  it('sealed cursors, page after page', async () => {
    for (let i = 0; i < 7; i++) {
      await table.put('Order', order({ customerId: 'c4', placedAt: `2026-03-0${i + 1}T00:00:00Z` },
                                     { receipt: new Uint8Array(i + 1).fill(i) }), { now: NOW });
    }
    const pages = [];
    let cursor;
    for (;;) {
      const page = await table.query('listOrders', { customerId: 'c4' }, { limit: 3, cursor });
      pages.push(page.items.map((e) => e.item.receipt[0]));
      if (!page.hasMore) break;
      assert.match(page.cursor, /^[A-Za-z0-9_-]+$/);
      cursor = page.cursor;
    }
    assert.deepEqual(pages, [[6, 5, 4], [3, 2, 1], [0]]);
    const all = [];
    for await (const entry of table.queryAll('listOrders', { customerId: 'c4' }, { limit: 2 })) all.push(entry);
    assert.equal(all.length, 7);
    const first = await table.query('listOrders', { customerId: 'c4' }, { limit: 3 });
    await assert.rejects(table.query('listOrders', { customerId: 'c5' }, { cursor: first.cursor }),
                         (e) => e instanceof DdbstError && e.codeName === 'ECURSOR' && e.path === 'cursor');
  });

  it('batches and transactions', async () => {
    const keys = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => key('c6', `2026-04-0${i}T00:00:00Z`, `01KKNS5TM0JB3X7N5WJJTB8P${i}A`));
    await table.batchWrite(keys.map((k, i) => ({ op: 'put', entity: 'Order', values: order(k, { receipt: new Uint8Array([i]) }) })),
                           { now: NOW });
    const got = await table.batchGet(keys.map((values) => ({ op: 'get', entity: 'Order', values })));
    assert.deepEqual(got.map((e) => e.item.receipt[0]).sort(), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const slots = await table.transactGet([
      { op: 'get', entity: 'Order', values: keys[0] },
      { op: 'get', entity: 'Order', values: { ...keys[0], orderId: '01KKNS5TM0JB3X7N5WJJTB8PZZ' } },
    ]);
    assert.deepEqual(slots[0].item.receipt, new Uint8Array([0]));
    assert.equal(slots[1], null);
  });

  it('a refused create, explained from the SDK exception', async () => {
    await table.create('Customer', { customerId: 'k1', email: 'Ann@Shop.example' });
    await assert.rejects(table.create('Customer', { customerId: 'k2', email: 'ANN@shop.EXAMPLE' }), (e) => {
      assert.ok(e instanceof DynamoDBError);
      assert.equal(e.kind, 'TransactionCanceled');
      assert.equal(e.reason, 'unique');
      assert.match(e.explanation, /unique constraint Customer\.email/);
      assert.match(e.message, /EMAIL#ann@shop\.example/);
      assert.equal(e.cause.name, 'TransactionCanceledException');
      return true;
    });
    assert.equal(await table.get('Customer', { customerId: 'k2' }, { consistent: true }), null);
    await assert.rejects(table.create('Customer', { customerId: 'k1', email: 'x@shop.example' }),
                         (e) => e.reason === 'exists');
    // not a write: the SDK's error as a DynamoDBError
    const other = new Ddbst({ modelFile, table: `${name}-missing` });
    try {
      await assert.rejects(new Table(other, client).get('Customer', { customerId: 'k1' }),
                           (e) => e instanceof DynamoDBError && e.kind === 'ResourceNotFound');
    } finally {
      other.close();
    }
  });

  it('values ddbst refuses', () => {
    assert.throws(() => exact.put('Order', order(key('c9', '2026-01-01T00:00:00Z', '01KKNS5TM0JB3X7N5WJJTB8P99'),
                                                { total: 'twelve' })),
                  (e) => e instanceof DdbstError && e.codeName === 'EVALUE' && e.path === 'Order.total');
    assert.throws(() => exact.put('Order', order({ customerId: 'c9' }, { total: Infinity })), TypeError);
    // a Date is an instant: written in UTC at the attribute's precision
    const r = exact.put('Order', order({ customerId: 'c9', placedAt: new Date(Date.UTC(2026, 2, 14, 9, 0, 0, 5)) }),
                        { now: NOW });
    assert.equal(r.item.placedAt, '2026-03-14T09:00:00.005Z');
  });
});
