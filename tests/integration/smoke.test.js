'use strict';
// Smoke test: DynamoDB Local answers signed requests at DDBST_ENDPOINT.
// Run: scripts/dynamodb-local node --test tests/integration/

const test = require('node:test');
const assert = require('node:assert/strict');
// Signed, sent and retried by the AWS SDK for JavaScript (pinned in
// tests/package-lock.json), as every Node test here is.
const sdk = require('@aws-sdk/client-dynamodb');

const client = new sdk.DynamoDBClient({
  endpoint: process.env.DDBST_ENDPOINT,
  region: process.env.AWS_REGION || 'us-east-1',
});

// One call of the DynamoDB API by its name ('PutItem'): the SDK's output.
async function dynamodb(operation, input) {
  return client.send(new sdk[`${operation}Command`](input));
}

test('ListTables answers with a TableNames array', async () => {
  const data = await dynamodb('ListTables', {});
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
  const created = await dynamodb('CreateTable', {
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
  });
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
  await dynamodb('PutItem', { TableName: table, Item: item });

  const got = await dynamodb('GetItem', {
    TableName: table,
    Key: { PK: item.PK, SK: item.SK },
    ConsistentRead: true,
  });
  assert.deepEqual(got.Item, item);

  const listed = await dynamodb('ListTables', {});
  assert.ok(listed.TableNames.includes(table), `${table} not in ${listed.TableNames}`);

  const gone = await dynamodb('DeleteTable', { TableName: table });
  deleted = true;
  assert.equal(gone.TableDescription.TableName, table);
});
