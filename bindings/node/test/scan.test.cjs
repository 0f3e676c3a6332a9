'use strict';
// Scans from Node through the installed ddbst package and the AWS SDK for
// JavaScript, on DynamoDB Local (docs/scans.md): a table of the SaaS model
// read whole by a parallel scan of 3 segments through sealed cursors, which
// must meet every item the SDK's own Scan meets (unique guards included,
// as items of no entity); a cursor refused by another segment; a filtered
// scan of one entity; and the orphan-guard audit, before and after a user
// is deleted behind ddbst's back.
//
//   scripts/dynamodb-local bindings/test node

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { DynamoDBClient, ScanCommand, DeleteItemCommand } = require('@aws-sdk/client-dynamodb');
const { Ddbst, DdbstError } = require('ddbst');
const sdk = require('ddbst/aws-sdk');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const modelFile = path.join(root, 'examples', 'saas', 'model.json');
const skip = process.env.DDBST_ENDPOINT ? false
  : 'DDBST_ENDPOINT is not set: run under scripts/dynamodb-local';

const USERS = [...Array(6).keys()].map((i) => ({
  orgId: 'acme', userId: `u${i}`, email: `User${i}@Acme.example`, role: i % 2 ? 'admin' : 'member',
  name: `User ${i}`,
}));
const PROJECTS = [...Array(9).keys()].map((i) => ({
  orgId: 'acme', projectId: `p${i}`, createdAt: `2026-03-0${i + 1}T09:00:00Z`,
  name: `Project ${i}`, status: i % 3 ? 'active' : 'archived',
}));

describe('scans through the ddbst package and the AWS SDK', { skip }, () => {
  let db, table, client, name;
  before(async () => {
    name = `scan-node-${Date.now()}-${process.pid}`;
    db = new Ddbst({ modelFile, table: name, cursorKeys: crypto.randomBytes(32).toString('hex') });
    client = new DynamoDBClient({ endpoint: process.env.DDBST_ENDPOINT,
      region: process.env.AWS_REGION || 'us-east-1', maxAttempts: 6 });
    table = new sdk.Table(db, client);
    await table.createTable();
    await table.put('Organisation', { orgId: 'acme', name: 'Acme', plan: 'pro' });
    for (const u of USERS) await table.create('User', u); // each with its email's guard
    await table.batchWrite(PROJECTS.map((p) => ({ op: 'put', entity: 'Project', values: p })));
  });
  after(async () => {
    if (table) await table.deleteTable();
    if (db) db.close();
  });

  it('a parallel scan meets every item the SDK meets', async () => {
    const oracle = [];
    let start;
    do {
      const out = await client.send(new ScanCommand({ TableName: name, ConsistentRead: true, ExclusiveStartKey: start }));
      for (const it of out.Items) oracle.push(`${it.PK.S} ${it.SK.S}`);
      start = out.LastEvaluatedKey;
    } while (start);
    assert.equal(oracle.length, 1 + 2 * USERS.length + PROJECTS.length);
    const seen = [];
    let guards = 0;
    for (let segment = 0; segment < 3; segment++) {
      for await (const entry of table.scanAll({ segment, totalSegments: 3, limit: 4 })) {
        if (entry.entity === null) { // a guard: every attribute as stored
          guards++;
          seen.push(`${entry.item.PK} ${entry.item.SK}`);
        } else {
          const { keys } = db.keys(entry.entity, entry.item);
          seen.push(`${keys.PK} ${keys.SK}`);
        }
      }
    }
    assert.equal(guards, USERS.length);
    assert.deepEqual(seen.sort(), oracle.sort());
  });

  it("a segment's cursor is refused by another segment", async () => {
    const page = await table.scan({ segment: 0, totalSegments: 3, limit: 1 });
    assert.equal(page.hasMore, true);
    assert.throws(() => db.scan({ segment: 1, totalSegments: 3, cursor: page.cursor }),
      (e) => e instanceof DdbstError && e.codeName === 'ECURSOR' && e.path === 'cursor');
  });

  it('a filtered scan reads one entity, typed', async () => {
    const found = [];
    for await (const entry of table.scanAll({ entities: ['Project'], filter: 'status = :s',
                                               params: { s: 'archived' }, limit: 5 })) {
      assert.equal(entry.entity, 'Project');
      found.push(entry.item);
    }
    const want = PROJECTS.filter((p) => p.status === 'archived');
    assert.deepEqual(found.sort((a, b) => a.projectId.localeCompare(b.projectId)), want);
  });

  it('names the guard whose holder was deleted behind its back', async () => {
    assert.deepEqual(await table.orphanGuards({ limit: 7 }), { guards: USERS.length, orphans: [] });
    await client.send(new DeleteItemCommand({ TableName: name,
      Key: { PK: { S: 'ORG#acme' }, SK: { S: 'USER#u3' } } }));
    assert.deepEqual(await table.orphanGuards({ limit: 7 }), {
      guards: USERS.length,
      orphans: [{ kind: 'missing', entity: 'User', unique: 'email', guard: 'EMAIL#user3@acme.example',
                  holder: { PK: 'ORG#acme', SK: 'USER#u3' } }],
    });
  });
});
