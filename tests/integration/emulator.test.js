'use strict';
// The emulator is DynamoDB Local 3.3 or later: a GSI whose key is several of
// the item's own attributes (two HASH, two RANGE: DynamoDB, November 2025;
// DynamoDB Local 3.3.0) is created, described and queried as declared.
// DynamoDB Local 1.x/2.x refuse this CreateTable, so a test run on an old jar
// fails here, by name, rather than later in a test of multi-attribute keys.
// Run: scripts/dynamodb-local node --test tests/integration/

const test = require('node:test');
const assert = require('node:assert/strict');
// Signed, sent and retried by the AWS SDK for JavaScript, as every Node
// test here is.
const sdk = require('@aws-sdk/client-dynamodb');

const client = new sdk.DynamoDBClient({
  endpoint: process.env.DDBST_ENDPOINT,
  region: process.env.AWS_REGION || 'us-east-1',
});

// One call of the DynamoDB API by its name; a refusal fails the test with
// `what` and DynamoDB's reason.
async function call(operation, input, what) {
  try {
    return await client.send(new sdk[`${operation}Command`](input));
  } catch (e) {
    assert.fail(`${what}: ${e.name}: ${e.message}`);
  }
}

test('a GSI keyed on two HASH and two RANGE attributes (DynamoDB Local >= 3.3)', async (t) => {
  const table = `ddbst_emulator_${process.pid}_${Date.now()}`;
  const gsiKey = [
    { AttributeName: 'game', KeyType: 'HASH' },
    { AttributeName: 'season', KeyType: 'HASH' },
    { AttributeName: 'score', KeyType: 'RANGE' },
    { AttributeName: 'playerId', KeyType: 'RANGE' },
  ];
  const created = await call('CreateTable', {
    TableName: table,
    AttributeDefinitions: [
      { AttributeName: 'PK', AttributeType: 'S' },
      { AttributeName: 'game', AttributeType: 'S' },
      { AttributeName: 'season', AttributeType: 'N' },
      { AttributeName: 'score', AttributeType: 'N' },
      { AttributeName: 'playerId', AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [{
      IndexName: 'Leaderboard',
      KeySchema: gsiKey,
      Projection: { ProjectionType: 'ALL' },
    }],
    BillingMode: 'PAY_PER_REQUEST',
  }, 'CreateTable with a multi-attribute GSI key (DynamoDB Local older than 3.3 refuses it)');
  t.after(() => client.send(new sdk.DeleteTableCommand({ TableName: table })));
  assert.deepEqual(created.TableDescription.GlobalSecondaryIndexes[0].KeySchema, gsiKey);

  const described = await call('DescribeTable', { TableName: table }, 'DescribeTable');
  assert.deepEqual(described.Table.GlobalSecondaryIndexes[0].KeySchema, gsiKey);

  const put = (pk, attrs) => call('PutItem', {
    TableName: table, Item: { PK: { S: pk }, ...attrs },
  }, `PutItem ${pk}`);
  const entry = (game, season, score, playerId) => ({
    game: { S: game }, season: { N: String(season) },
    score: { N: String(score) }, playerId: { S: playerId },
  });
  await put('a', entry('chess', 2026, 1500, 'ann'));
  await put('b', entry('chess', 2026, 1700, 'bob'));
  await put('c', entry('chess', 2026, 1700, 'ada'));
  await put('d', entry('chess', 2025, 1900, 'cy'));   // another season
  await put('e', entry('go', 2026, 1800, 'dee'));     // another game
  await put('f', { game: { S: 'chess' }, season: { N: '2026' } }); // no score: not in the index

  // Both partition attributes by equality, the first sort attribute by range,
  // highest first; ties on score ordered by the second sort attribute.
  const page = await call('Query', {
    TableName: table,
    IndexName: 'Leaderboard',
    KeyConditionExpression: '#g = :g AND #s = :s AND #score >= :min',
    ExpressionAttributeNames: { '#g': 'game', '#s': 'season', '#score': 'score' },
    ExpressionAttributeValues: { ':g': { S: 'chess' }, ':s': { N: '2026' }, ':min': { N: '1600' } },
    ScanIndexForward: false,
  }, 'Query on both partition attributes of the multi-attribute GSI');
  assert.deepEqual(page.Items.map((i) => i.PK.S), ['b', 'c']);
});
