'use strict';
// Smoke test: DynamoDB Local answers signed requests at DDBST_ENDPOINT.
// Run: scripts/dynamodb-local node --test tests/integration/

const test = require('node:test');
const assert = require('node:assert/strict');
const { dynamodb } = require('./sigv4.js');

function ok(res, what) {
  assert.equal(res.status, 200, `${what}: HTTP ${res.status}: ${res.text}`);
  assert.ok(res.data && typeof res.data === 'object', `${what}: not JSON: ${res.text}`);
  return res.data;
}

test('ListTables answers with a TableNames array', async () => {
  const data = ok(await dynamodb('ListTables', {}), 'ListTables');
  assert.ok(Array.isArray(data.TableNames), `no TableNames array: ${JSON.stringify(data)}`);
});

test('an unsigned request is refused', async () => {
  const res = await fetch(process.env.DDBST_ENDPOINT, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
    },
    body: '{}',
  });
  assert.equal(res.status, 400);
  await res.text();
});

test('CreateTable, PutItem, GetItem, DeleteTable round trip', async (t) => {
  const table = `ddbst_smoke_${process.pid}_${Date.now()}`;
  const created = ok(await dynamodb('CreateTable', {
    TableName: table,
    AttributeDefinitions: [
      { AttributeName: 'PK', AttributeType: 'S' },
      { AttributeName: 'SK', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  }), 'CreateTable');
  assert.equal(created.TableDescription.TableName, table);

  let deleted = false;
  t.after(async () => {
    if (!deleted) await dynamodb('DeleteTable', { TableName: table });
  });

  const item = {
    PK: { S: 'ORG#123' },
    SK: { S: 'USER#9' },
    name: { S: 'Ann — ünïcödé' },
    n: { N: '42' },
    tags: { SS: ['a', 'b'] },
    nested: { M: { ok: { BOOL: true }, none: { NULL: true }, list: { L: [{ N: '1' }, { S: 'x' }] } } },
  };
  ok(await dynamodb('PutItem', { TableName: table, Item: item }), 'PutItem');

  const got = ok(await dynamodb('GetItem', {
    TableName: table,
    Key: { PK: item.PK, SK: item.SK },
    ConsistentRead: true,
  }), 'GetItem');
  assert.deepEqual(got.Item, item);

  const listed = ok(await dynamodb('ListTables', {}), 'ListTables');
  assert.ok(listed.TableNames.includes(table), `${table} not in ${listed.TableNames}`);

  const gone = ok(await dynamodb('DeleteTable', { TableName: table }), 'DeleteTable');
  deleted = true;
  assert.equal(gone.TableDescription.TableName, table);
});
