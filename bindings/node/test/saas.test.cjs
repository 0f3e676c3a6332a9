'use strict';
// The SaaS example (examples/saas/model.json) from Node through the
// installed ddbst package and the AWS SDK for JavaScript: every operation of
// the JSON entry at least once, the model's seven access patterns read back
// page by page through sealed cursors, against DynamoDB Local at
// DDBST_ENDPOINT. The SDK signs, sends and retries.
//
//   scripts/dynamodb-local bindings/test node
//
// Skipped, every test, when DDBST_ENDPOINT is unset.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { DynamoDBClient, DescribeTableCommand, DeleteTableCommand } = require('@aws-sdk/client-dynamodb');
const { Ddbst, DdbstError, DynamoDBError } = require('ddbst');
const sdk = require('ddbst/aws-sdk');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const modelFile = path.join(root, 'examples', 'saas', 'model.json');
const model = JSON.parse(fs.readFileSync(modelFile, 'utf8'));
const table = `saas-node-${Date.now()}-${process.pid}`;
const NOW = 1773478800000000; // 2026-03-14T09:00:00Z, in microseconds
const skip = process.env.DDBST_ENDPOINT ? false
  : 'DDBST_ENDPOINT is not set: run under scripts/dynamodb-local';
if (skip) console.log(`saas.test: skipped: ${skip}`);

let db; // the session of this run: its own table, a random cursor key
const client = skip ? null : new DynamoDBClient({
  endpoint: process.env.DDBST_ENDPOINT,
  region: process.env.AWS_REGION || 'us-east-1',
  maxAttempts: 6,
});

// ---- DynamoDB ----

// Sends one request of the JSON entry ({operation, target, body}) through
// the SDK: {status: 200, out} or {status, error} (the SDK's exception).
async function send(request) {
  try {
    return { status: 200, out: await sdk.send(client, request) };
  } catch (error) {
    if (!error.$metadata) throw error;
    return { status: error.$metadata.httpStatusCode, error };
  }
}

async function sendOk(request) {
  const res = await send(request);
  assert.equal(res.status, 200, `${request.operation}: HTTP ${res.status}: ${res.error}`);
  return res.out;
}

// Every BatchWriteItem of a batchWrite answer, and DynamoDB's leftovers
// (the page's followup) until none are left.
async function writeBatch(answer) {
  for (let request of answer.requests) {
    for (let attempt = 0; request; attempt++) {
      assert.ok(attempt < 10, 'items still unprocessed after 10 attempts');
      const page = db.page(await sendOk(request), { operation: 'BatchWriteItem' });
      request = page.followup;
    }
  }
}

// One GetItem: the item read back ({entity, item}), or null.
async function getItem(entity, values) {
  const page = db.page(await sendOk(db.get(entity, values, { consistent: true })),
                       { operation: 'GetItem' });
  return page.count ? page.items[0] : null;
}

// Every page of a pattern: the items of each ({entity, item}), each page's
// request built with the cursor the previous page's answer sealed.
async function pages(pattern, values, options = {}) {
  const out = [];
  let cursor;
  for (;;) {
    const request = db.query(pattern, values, { ...options, cursor });
    if (cursor) assert.ok(request.body.ExclusiveStartKey, 'a cursor gives ExclusiveStartKey');
    const page = db.page(await sendOk(request), { pattern, values });
    out.push(page.items.map((x) => x.item));
    assert.equal(page.count, page.items.length);
    if (!page.hasMore) {
      assert.equal(page.cursor, undefined);
      return out;
    }
    // sealed: no key, attribute name or value to read in it
    assert.match(page.cursor, /^[A-Za-z0-9_-]+$/);
    // sealed: no key of the table in its bytes (six bytes or more: a random
    // cursor holds a short one by chance, as its base64 text holds "ORG")
    const opened = Buffer.from(page.cursor, 'base64url').toString('latin1');
    assert.ok(!/ORG#acme|USER#u|PROJECT#2|EVENT#2|STATUS#a/.test(opened), page.cursor);
    cursor = page.cursor;
    assert.ok(out.length < 20, 'more than 20 pages');
  }
}

async function waitActive() {
  for (let i = 0; i < 600; i++) {
    const { Table: t } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (t && t.TableStatus === 'ACTIVE' &&
        (t.GlobalSecondaryIndexes || []).every((x) => x.IndexStatus === 'ACTIVE')) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail(`${table} not ACTIVE after 5 minutes`);
}

// ---- the data set (as in examples/curl) ----

const orgs = [
  { orgId: 'acme', name: 'Acme Corp', plan: 'pro', createdAt: '2026-03-14T09:00:00Z' },
  { orgId: 'globex', name: 'Globex', plan: 'free', createdAt: '2026-03-14T09:00:00Z' },
];
const users = [
  { orgId: 'acme', userId: 'u1', email: 'ann@acme.example', role: 'admin', name: 'Ann Lee' },
  { orgId: 'acme', userId: 'u2', email: 'bob@acme.example', role: 'member', name: 'Bob Stone' },
  { orgId: 'acme', userId: 'u3', email: 'chloe@acme.example', role: 'member', name: 'Chloé Martin' },
  { orgId: 'acme', userId: 'u4', email: 'dev@acme.example', role: 'member', name: 'Dev Patel' },
  { orgId: 'acme', userId: 'u5', email: 'eve@acme.example', role: 'viewer', name: 'Eve Quinn' },
];
const projects = [
  { orgId: 'acme', projectId: 'p1', createdAt: '2026-01-05T09:00:00Z', name: 'Apollo', status: 'active' },
  { orgId: 'acme', projectId: 'p2', createdAt: '2026-01-20T14:30:00Z', name: 'Borealis', status: 'archived' },
  // given in another zone: stored, and sorted, as 2026-02-11T07:00:00Z
  { orgId: 'acme', projectId: 'p3', createdAt: '2026-02-11T08:00:00+01:00', name: 'Cygnus', status: 'active' },
  { orgId: 'acme', projectId: 'p4', createdAt: '2026-02-28T17:45:00Z', name: 'Draco', status: 'active' },
  { orgId: 'acme', projectId: 'p5', createdAt: '2026-03-09T10:15:00Z', name: 'Eridanus', status: 'active' },
  { orgId: 'globex', projectId: 'p6', createdAt: '2026-02-01T12:00:00Z', name: 'Fornax', status: 'active' },
];
const stored = (p) => ({ ...p, createdAt: p.createdAt.replace('08:00:00+01:00', '07:00:00Z') });
const project = (id) => stored(projects.find((p) => p.projectId === id));
const eventsGiven = [
  ['p1', '2026-03-01T09:00:00Z', 'created'],
  ['p1', '2026-03-01T16:20:00Z', 'comment', { by: 'u2' }],
  ['p1', '2026-03-02T08:00:00Z', 'deploy', { version: '1.0.0' }],
  ['p1', '2026-03-02T12:30:00Z', 'comment', { by: 'u3' }],
  ['p1', '2026-03-03T09:15:00Z', 'deploy', { version: '1.0.1', tags: ['a', 'b'] }],
  ['p1', '2026-03-03T11:00:00Z', 'review'],
  ['p1', '2026-03-03T18:00:00Z', 'incident', { severity: 2, paged: true }],
  ['p1', '2026-03-04T00:00:00Z', 'resolved'],
  ['p1', '2026-03-04T23:59:59Z', 'deploy', { version: '1.0.2' }],
  ['p1', '2026-03-05T00:00:00Z', 'comment', { by: 'u1' }],
  ['p1', '2026-03-06T17:00:00Z', 'closed'],
  ['p2', '2026-03-02T10:00:00Z', 'archived'],
];
let events = []; // as stored: with the ULIDs ddbst generated
const writes = {}; // requests kept for the stream event

describe('the SaaS example through the ddbst package and the AWS SDK', { skip }, () => {
  before(async () => {
    db = new Ddbst({
      modelFile,
      table,
      cursorKeys: crypto.randomBytes(32).toString('hex'),
      cursorMaxAge: 3600,
    });
    const create = db.createTable();
    assert.equal(create.operation, 'CreateTable');
    assert.equal(create.target, 'DynamoDB_20120810.CreateTable');
    assert.equal(create.body.TableName, table);
    await sendOk(create);
    await waitActive();
  });

  after(async () => {
    if (db) {
      await client.send(new DeleteTableCommand({ TableName: table }));
      db.close();
    }
  });

  it('reads the model: check, version, patterns, lint, doc, cloudformation', () => {
    assert.deepEqual(db.check(), { ok: true, table, entities: 4, patterns: 7 });

    const cmake = fs.readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8');
    assert.equal(db.version(), /project\(ddbst VERSION (\S+)/.exec(cmake)[1]);

    const patterns = db.patterns();
    assert.deepEqual(Object.keys(patterns), Object.keys(model.patterns));
    assert.deepEqual(patterns.listEvents, {
      op: 'query', entities: ['Event'], index: null, pk: 'PROJECT#{projectId}',
      sk: 'EVENT#{ts}#{eventId}', range: 'ts', order: 'asc',
      limit: { default: 100, max: 1000 },
    });
    assert.equal(patterns.userByEmail.index, 'GSI1');
    assert.equal(patterns.userByEmail.pk, 'EMAIL#{email:lower}');

    const lint = db.lint();
    assert.equal(lint.errors, 0);
    assert.ok(lint.findings.some((f) => f.rule === 'few-partitions' &&
                                        f.path === 'entities.Project.indexes.GSI2.pk'));
    assert.ok(lint.findings.every((f) => f.severity !== 'error'));

    // the model's own table name: docs/examples/saas.md is this page
    const plain = new Ddbst({ modelFile });
    try {
      assert.equal(plain.doc(), fs.readFileSync(path.join(root, 'docs', 'examples', 'saas.md'), 'utf8'));
    } finally {
      plain.close();
    }
    assert.ok(db.doc().startsWith(`# ${table}\n`));

    const template = db.cloudformation();
    const props = template.Resources.AppTable.Properties;
    const create = db.createTable().body;
    assert.equal(template.Resources.AppTable.Type, 'AWS::DynamoDB::Table');
    // the name in force is the TableName parameter's default
    assert.equal(template.Parameters.TableName.Default, table);
    assert.deepEqual(props.TableName['Fn::If'][2], { Ref: 'TableName' });
    assert.deepEqual(template.Outputs.TableArn.Value, { 'Fn::GetAtt': ['AppTable', 'Arn'] });
    assert.deepEqual(props.AttributeDefinitions, create.AttributeDefinitions);
    assert.deepEqual(props.KeySchema, create.KeySchema);
    assert.deepEqual(props.TimeToLiveSpecification, { AttributeName: 'expiresAt', Enabled: true });
  });

  it('builds exact keys, reads them back, sizes items, refuses forged keys', () => {
    assert.deepEqual(db.keys('Project', {
      orgId: '123', projectId: 'p1', createdAt: '2026-03-14T10:00:00+01:00',
      name: 'Website', status: 'active',
    }).keys, {
      PK: 'ORG#123', SK: 'PROJECT#2026-03-14T09:00:00Z#p1', GSI2PK: 'STATUS#active',
      GSI2SK: '2026-03-14T09:00:00Z', _type: 'Project',
    });
    // no status: out of the sparse GSI2
    assert.deepEqual(db.keys('Project', { orgId: '123', projectId: 'p1' }, { now: NOW }), {
      keys: { PK: 'ORG#123', SK: 'PROJECT#2026-03-14T09:00:00Z#p1', _type: 'Project' },
      item: { orgId: '123', projectId: 'p1', createdAt: '2026-03-14T09:00:00Z' },
    });
    const ann = db.keys('User', { ...users[0], email: 'Ann@ACME.example' });
    assert.deepEqual(ann.keys, {
      PK: 'ORG#acme', SK: 'USER#u1', GSI1PK: 'EMAIL#ann@acme.example', _type: 'User',
    });

    // DynamoDB's size: every name and string value, in UTF-8 bytes
    const values = users[2];
    const all = { ...db.keys('User', values).keys, ...values };
    const bytes = Object.entries(all)
      .reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
    assert.deepEqual(db.itemSize('User', values), { bytes, limit: 409600 });

    assert.deepEqual(db.parse('ORG#123', 'PROJECT#2026-03-14T09:00:00Z#p1'), {
      entity: 'Project',
      values: { orgId: '123', projectId: 'p1', createdAt: '2026-03-14T09:00:00Z' },
    });
    assert.deepEqual(db.parse('EMAIL#ann@acme.example', undefined, { index: 'GSI1' }),
                     { entity: 'User', values: { email: 'ann@acme.example' } });

    assert.throws(() => db.keys('User', { orgId: 'acme#USER#admin', userId: 'u9', email: 'x@y.z' }), (e) => {
      assert.ok(e instanceof DdbstError);
      assert.ok(!(e instanceof DynamoDBError));
      assert.equal(e.name, 'DdbstError');
      assert.equal(e.codeName, 'EVALUE');
      assert.equal(e.code, -5);
      assert.equal(e.path, 'facet orgId');
      assert.equal(e.message,
                   "User.orgId contains the key delimiter '#', which would forge another key");
      return true;
    });
    assert.throws(() => db.keys('User', { orgId: 1 }), {
      codeName: 'EVALUE', path: 'values.orgId',
      message: 'orgId is of type string: give it as a JSON string',
    });
    assert.throws(() => db.call({ op: 'nope' }), {
      codeName: 'EINVAL', path: 'op', message: 'unknown op nope (docs/ffi.md lists them)',
    });
    assert.throws(() => new Ddbst({ model: { ddbst: 1, table: { name: 't', sortkey: 1 } } }), (e) => {
      assert.equal(e.codeName, 'EMODEL');
      assert.equal(e.path, 'table.sortkey');
      assert.ok(e.errors.length > 1, 'every problem of the model is listed');
      return true;
    });
  });

  it('writes: create, put, update, delete, transact, batchWrite', async () => {
    for (const org of orgs) {
      const { orgId, name } = org;
      const answer = db.create('Organisation', { orgId, name, plan: 'basic' }, { now: NOW });
      assert.equal(answer.operation, 'PutItem');
      assert.equal(answer.body.ConditionExpression, 'attribute_not_exists(#n0)');
      assert.deepEqual(answer.item, { ...org, plan: 'basic' }); // createdAt: its default, now
      await sendOk(answer);
    }
    // a create of what exists is refused; a put overwrites
    const again = await send(db.create('Organisation', { orgId: 'acme', name: 'x' }));
    assert.equal(again.status, 400);
    assert.throws(() => db.page(again.error, { operation: 'GetItem' }), (e) => {
      assert.ok(e instanceof DynamoDBError);
      assert.equal(e.name, 'DynamoDBError');
      assert.equal(e.codeName, 'EDYNAMODB');
      assert.equal(e.dynamodb.kind, 'ConditionalCheckFailed');
      assert.equal(e.dynamodb.retryable, false);
      return true;
    });
    for (const org of orgs) {
      const answer = db.put('Organisation', org);
      assert.equal(answer.operation, 'PutItem');
      assert.equal(answer.body.ConditionExpression, undefined);
      await sendOk(answer);
    }

    for (const user of users) {
      const answer = db.create('User', user);
      // the user and its email's guard item, in one transaction
      assert.equal(answer.operation, 'TransactWriteItems');
      assert.equal(answer.body.TransactItems.length, 2);
      assert.deepEqual(answer.body.TransactItems[1].Put.Item.PK, { S: `EMAIL#${user.email}` });
      writes[user.userId] = answer;
      await sendOk(answer);
    }
    const update = db.update('User', { orgId: 'acme', userId: 'u2' }, { set: { role: 'admin' } });
    assert.equal(update.operation, 'UpdateItem');
    assert.equal(update.body.ConditionExpression, 'attribute_exists(#n1)');
    await sendOk(update);
    users[1].role = 'admin';
    assert.deepEqual(await getItem('User', { orgId: 'acme', userId: 'u2' }),
                     { entity: 'User', item: users[1] });

    // a project with a check on its organisation, in one transaction
    const p6 = projects.find((p) => p.projectId === 'p6');
    const txn = db.transact([
      { op: 'put', entity: 'Project', values: p6 },
      { op: 'check', entity: 'Organisation', values: { orgId: 'globex' } },
    ]);
    assert.equal(txn.operation, 'TransactWriteItems');
    assert.deepEqual(Object.keys(txn.body.TransactItems[1]), ['ConditionCheck']);
    await sendOk(txn);

    // the rest in batches: events get their ULIDs from keys first, so the
    // test knows what it wrote
    events = eventsGiven.map(([projectId, ts, type, payload], i) => {
      const values = { projectId, ts, type, payload };
      if (i === 0) values.expiresAt = 4102444800; // 2100-01-01, a TTL
      const { item } = db.keys('Event', values);
      assert.match(item.eventId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
      return item;
    });
    const batch = db.batchWrite([
      ...projects.filter((p) => p !== p6).map((values) => ({ op: 'put', entity: 'Project', values })),
      ...events.map((values) => ({ op: 'put', entity: 'Event', values })),
    ]);
    assert.equal(batch.requests.length, 1); // 17 puts: at most 25 a request
    await writeBatch(batch);

    // a user deleted with its email's guard: the email is free again
    const frank = { orgId: 'globex', userId: 'u8', email: 'frank@globex.example', name: 'Frank' };
    await sendOk(db.create('User', frank));
    assert.throws(() => db.delete('User', { orgId: 'globex', userId: 'u8' }), {
      codeName: 'EMISSING', path: 'User.email', message: 'the unique guard email of User needs email',
    });
    const del = db.delete('User', { orgId: 'globex', userId: 'u8', email: frank.email });
    assert.equal(del.operation, 'TransactWriteItems');
    writes.deleteFrank = del;
    await sendOk(del);
    assert.equal(await getItem('User', { orgId: 'globex', userId: 'u8' }), null);
    await sendOk(db.create('User', { ...frank, userId: 'u9' }));
    await sendOk(db.delete('User', { orgId: 'globex', userId: 'u9', email: frank.email }));
    const plain = db.delete('Organisation', { orgId: 'nobody' }, { ifExists: true });
    assert.equal(plain.operation, 'DeleteItem');
    assert.equal((await send(plain)).status, 400); // ifExists: nothing to delete
  });

  it('1. getOrganisation and 2. getUser', async () => {
    assert.deepEqual(await getItem('Organisation', { orgId: 'acme' }),
                     { entity: 'Organisation', item: orgs[0] });
    assert.deepEqual(await getItem('User', { orgId: 'acme', userId: 'u3' }),
                     { entity: 'User', item: users[2] });
    assert.equal(await getItem('User', { orgId: 'acme', userId: 'u404' }), null);
  });

  it('batchGet: users and an organisation in one request', async () => {
    const answer = db.batchGet([
      { op: 'get', entity: 'User', values: { orgId: 'acme', userId: 'u1' } },
      { op: 'get', entity: 'User', values: { orgId: 'acme', userId: 'u5' } },
      { op: 'get', entity: 'Organisation', values: { orgId: 'globex' } },
    ], { consistent: true });
    assert.equal(answer.requests.length, 1);
    const page = db.page(await sendOk(answer.requests[0]), { operation: 'BatchGetItem' });
    assert.equal(page.followup, undefined);
    const key = (x) => JSON.stringify(x);
    assert.deepEqual(page.items.map(key).sort(), [
      { entity: 'User', item: users[0] },
      { entity: 'User', item: users[4] },
      { entity: 'Organisation', item: orgs[1] },
    ].map(key).sort());
  });

  it('3. listUsers, 2 a page, and cursors that are refused', async () => {
    const values = { orgId: 'acme' };
    assert.deepEqual(await pages('listUsers', values, { limit: 2 }),
                     [[users[0], users[1]], [users[2], users[3]], [users[4]]]);

    const first = db.page(await sendOk(db.query('listUsers', values, { limit: 2 })),
                          { pattern: 'listUsers', values });
    assert.ok(first.cursor);
    // one character changed
    const i = first.cursor.length - 10;
    const tampered = first.cursor.slice(0, i) + (first.cursor[i] === 'A' ? 'B' : 'A') +
                     first.cursor.slice(i + 1);
    const refused = (e) => {
      assert.ok(e instanceof DdbstError);
      assert.equal(e.codeName, 'ECURSOR');
      assert.equal(e.path, 'cursor');
      assert.equal(e.message, 'the cursor does not open: it was made for another pattern, ' +
                              'index, sort order or partition, or it was altered');
      return true;
    };
    assert.throws(() => db.query('listUsers', values, { limit: 2, cursor: tampered }), refused);
    // acme's cursor for another tenant, or another pattern
    assert.throws(() => db.query('listUsers', { orgId: 'globex' }, { cursor: first.cursor }), refused);
    // another pattern of the same partition: the refusal names the one it came from
    assert.throws(() => db.query('listProjects', values, { cursor: first.cursor }), (e) => {
      assert.ok(e instanceof DdbstError);
      assert.equal(e.codeName, 'ECURSOR');
      assert.equal(e.message, 'the cursor was made for pattern listUsers, not listProjects: ' +
                              'send it with the query it came from, or start listProjects ' +
                              'from its first page');
      return true;
    });
  });

  it('4. userByEmail, in any letter case, then getUser', async () => {
    const [[key]] = await pages('userByEmail', { email: 'ANN@Acme.Example' });
    assert.deepEqual(key, { orgId: 'acme', userId: 'u1' }); // GSI1 is KEYS_ONLY
    assert.deepEqual(await getItem('User', key), { entity: 'User', item: users[0] });
  });

  it('5. listProjects, newest first, 2 a page', async () => {
    assert.deepEqual(await pages('listProjects', { orgId: 'acme' }, { limit: 2 }),
                     [[project('p5'), project('p4')], [project('p3'), project('p2')], [project('p1')]]);
    // a sort-key condition inside the entity's key space
    assert.deepEqual(await pages('listProjects', { orgId: 'acme' },
                                 { condition: { createdAt: { begins: '2026-01' } } }),
                     [[project('p2'), project('p1')]]);
  });

  it('6. listEvents of p1 from 2026-03-02 through 2026-03-04, 3 a page', async () => {
    const want = events.filter((e) => e.projectId === 'p1' &&
                               e.ts >= '2026-03-02' && e.ts < '2026-03-05');
    assert.equal(want.length, 7);
    assert.deepEqual(await pages('listEvents', { projectId: 'p1' }, {
      limit: 3, condition: { ts: { between: ['2026-03-02', '2026-03-04'] } },
    }), [want.slice(0, 3), want.slice(3, 6), want.slice(6)]);
    // the documents came back as they went in
    assert.deepEqual(want[2].payload, { version: '1.0.1', tags: ['a', 'b'] });
    const first = db.page(await sendOk(db.query('listEvents', { projectId: 'p1' }, { limit: 1 })),
                          { pattern: 'listEvents', values: { projectId: 'p1' } });
    assert.deepEqual(first.items, [{ entity: 'Event', item: events[0] }]);
    assert.equal(first.items[0].item.expiresAt, 4102444800);
  });

  it('7. projectsByStatus active (every organisation), newest first, 2 a page', async () => {
    assert.deepEqual(await pages('projectsByStatus', { status: 'active' }, { limit: 2 }),
                     [[project('p5'), project('p4')], [project('p3'), project('p6')], [project('p1')]]);
  });

  it('explain: a second user with a taken email is refused by DynamoDB', async () => {
    const request = {
      op: 'create', entity: 'User',
      values: { orgId: 'acme', userId: 'u6', email: 'ANN@ACME.example', role: 'member', name: 'Ann Again' },
    };
    const res = await send(db.call(request));
    assert.equal(res.status, 400, String(res.error));
    assert.throws(() => db.page(res.error, { operation: 'GetItem' }), (e) => {
      assert.ok(e instanceof DynamoDBError);
      assert.equal(e.dynamodb.type, 'TransactionCanceledException');
      assert.equal(e.dynamodb.kind, 'TransactionCanceled');
      assert.deepEqual(e.dynamodb.reasons.map((r) => r.kind), ['None', 'ConditionalCheckFailed']);
      return true;
    });
    const why = db.explain(res.error, request);
    assert.equal(why.kind, 'unique');
    assert.match(why.explanation, /unique constraint User\.email/);
    assert.equal(why.dynamodb.type, 'TransactionCanceledException');
    assert.equal(await getItem('User', { orgId: 'acme', userId: 'u6' }), null);
  });

  it('stream: a Lambda event of what was written', () => {
    // the images are the items this run wrote, as DynamoDB holds them
    const u1 = writes.u1.body.TransactItems[0].Put.Item;
    const u1Guard = writes.u1.body.TransactItems[1].Put.Item;
    const keysOf = (img) => ({ PK: img.PK, SK: img.SK });
    const record = (n, eventName, dynamodbPart, extra = {}) => ({
      eventID: `ev-${n}`, eventName, eventVersion: '1.1', eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1', ...extra,
      dynamodb: {
        ApproximateCreationDateTime: 1773478800, SequenceNumber: `${n}00000000000000000001`,
        SizeBytes: 200, StreamViewType: 'NEW_AND_OLD_IMAGES', ...dynamodbPart,
      },
      eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}/stream/2026-03-14T09:00:00.000`,
    });
    const u2Old = writes.u2.body.TransactItems[0].Put.Item;
    const u2New = { ...u2Old, role: { S: 'admin' } };
    const event = {
      Records: [
        record(1, 'INSERT', { Keys: keysOf(u1), NewImage: u1 }),
        record(2, 'INSERT', { Keys: keysOf(u1Guard), NewImage: u1Guard }),
        record(3, 'MODIFY', { Keys: keysOf(u2New), NewImage: u2New, OldImage: u2Old }),
        record(4, 'REMOVE', { Keys: keysOf(u1), OldImage: u1 },
               { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } }),
      ],
    };
    const out = db.stream(event, [2]);
    assert.deepEqual(out.records.map((r) => [r.eventName, r.entity, r.eventID]), [
      ['INSERT', 'User', 'ev-1'], ['INSERT', null, 'ev-2'],
      ['MODIFY', 'User', 'ev-3'], ['REMOVE', 'User', 'ev-4'],
    ]);
    assert.deepEqual(out.records[0].keys, { orgId: 'acme', userId: 'u1' });
    assert.deepEqual(out.records[0].new, users[0]);
    assert.deepEqual(out.records[2].old, { ...users[1], role: 'member' });
    assert.deepEqual(out.records[2].new, users[1]);
    assert.equal(out.records[3].removedByTtl, true);
    assert.deepEqual(out.failures, { batchItemFailures: [{ itemIdentifier: '300000000000000000001' }] });

    assert.throws(() => db.stream({ Records: {} }), {
      codeName: 'EVALUE', path: 'Records', message: 'expected a list of records, found an object',
    });
  });

  it('close: the session is gone, closing twice is harmless', () => {
    const s = new Ddbst({ modelFile });
    assert.equal(s.check().table, 'saas-api-dev');
    s.close();
    s.close();
    assert.throws(() => s.check(), /closed/);
  });
});
