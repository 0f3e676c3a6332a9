'use strict';
// Hydration from Node through the installed ddbst package and the AWS SDK
// for JavaScript, on DynamoDB Local: tests/integration/models/hydrate.json
// keys Member in a KEYS_ONLY index by team and join date. 130 members are
// written, read through the index in one page, and hydrated (BatchGetItem
// of 100 keys and 30): every full item must be the one written, in the
// index's order; a member deleted between the query and the hydration is
// missing.
//
//   scripts/dynamodb-local bindings/test node

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { Ddbst } = require('ddbst');
const sdk = require('ddbst/aws-sdk');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const modelFile = path.join(root, 'tests', 'integration', 'models', 'hydrate.json');
const skip = process.env.DDBST_ENDPOINT ? false
  : 'DDBST_ENDPOINT is not set: run under scripts/dynamodb-local';
const N = 130;

// Member i as written; its join date is not in memberId order.
function member(i) {
  const m = (i * 37) % N;
  const pad = (x) => String(x).padStart(2, '0');
  const v = {
    orgId: 'o1', memberId: `m${String(i).padStart(3, '0')}`, teamId: 't1',
    joinedAt: `2026-01-01T${pad(Math.floor(m / 60))}:${pad(m % 60)}:00Z`,
    role: i % 3 ? 'dev' : 'Admin', name: `Member ${i}`,
  };
  if (i % 5) v.email = `m${i}@example.com`;
  v.score = i * 10 - 7;
  v.tags = new Set([`t${i % 4}`]);
  v.profile = { level: i % 9 };
  return v;
}
const order = [...Array(N).keys()].sort((a, b) => (a * 37) % N - (b * 37) % N);

describe('hydration through the ddbst package and the AWS SDK', { skip }, () => {
  let db, table;
  before(async () => {
    db = new Ddbst({ modelFile, table: `hydrate-node-${Date.now()}-${process.pid}`,
                     cursorKeys: crypto.randomBytes(32).toString('hex') });
    const client = new DynamoDBClient({ endpoint: process.env.DDBST_ENDPOINT,
      region: process.env.AWS_REGION || 'us-east-1', maxAttempts: 6 });
    table = new sdk.Table(db, client);
    await table.createTable();
    await table.batchWrite([...Array(N).keys()].map((i) => ({ op: 'put', entity: 'Member', values: member(i) })));
  });
  after(async () => {
    if (table) await table.deleteTable();
    if (db) db.close();
  });

  it('a KEYS_ONLY page comes back whole, in the index order', async () => {
    const page = await table.queryFull('membersOfTeam', { teamId: 't1' }, { limit: N, consistent: true });
    assert.equal(page.count, N);
    assert.deepEqual(page.missing, []);
    assert.deepEqual(page.items.map((e) => e.item), order.map(member));
  });

  it('the index page says what it lacks', async () => {
    const out = await table.send(db.query('membersOfTeam', { teamId: 't1' }, { limit: 1 }));
    const page = db.page(out, { pattern: 'membersOfTeam', values: { teamId: 't1' } });
    assert.deepEqual(page.items[0].notProjected, ['role', 'name', 'email', 'score', 'tags', 'profile']);
  });

  it('a member deleted since the query is missing', async () => {
    const out = await table.send(db.query('membersOfTeam', { teamId: 't1' }, { limit: N }));
    const gone = order[5];
    await table.delete('Member', { orgId: 'o1', memberId: member(gone).memberId });
    const full = await table.hydrate(out, { attributes: ['name'] });
    assert.equal(full.requests.length, 2);
    assert.deepEqual(full.missing, [5]);
    assert.deepEqual(full.pending, []);
    assert.equal(full.items[5], null);
    order.forEach((i, k) => {
      if (i !== gone) {
        assert.deepEqual(full.items[k].item, { orgId: 'o1', memberId: member(i).memberId, name: `Member ${i}` });
      }
    });
  });
});
