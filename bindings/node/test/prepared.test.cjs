'use strict';
// Prepared operations (db.prepare): the same bodies as db.put, db.query,
// db.get and db.delete for the same values, byte for byte; values the fast
// path does not take, and every failure, answered by the JSON entry with
// its own errors; handles freed with their session. Then on DynamoDB Local
// through the AWS SDK: a prepared put sent as its text (ddbst/aws-sdk's
// middleware) and read back, a prepared query paged with its cursors, and
// a prepared update (SET, REMOVE, ADD, the version expected) read back.
//
//   scripts/dynamodb-local bindings/test node

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { DynamoDBClient, GetItemCommand } = require('@aws-sdk/client-dynamodb');
const { Ddbst, DdbstError, NumberText } = require('ddbst');
const { Table } = require('ddbst/aws-sdk');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const modelFile = path.join(root, 'examples', 'saas', 'model.json');
const catalogFile = path.join(root, 'examples', 'catalog', 'model.json');
const KEY = '00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210';
const NOW = 1773478800000000; // 2026-03-14T09:00:00Z
const project = (n) => ({
  orgId: 'acme', projectId: `p-${String(n).padStart(3, '0')}`,
  createdAt: `2026-03-${String(1 + (n % 28)).padStart(2, '0')}T09:00:00Z`, name: `Project ${n}`, status: 'active',
});

// The body the JSON entry writes for the same request, as text.
const entryText = (db, request) => JSON.stringify(db.call(request).body);

// f's result, with the JSON entry of `db` counted: how many calls f made.
function counted(db, f) {
  const call = db.call;
  let n = 0;
  db.call = function (...args) { n++; return call.apply(this, args); };
  try {
    return [f(), n];
  } finally {
    db.call = call;
  }
}
// f's result, which must be built without the JSON entry.
function fast(db, f) {
  const [out, n] = counted(db, f);
  assert.equal(n, 0, 'built on the fast path');
  return out;
}

// The same error, thrown by both.
function sameError(f, g) {
  let want;
  try { g(); } catch (e) { want = e; }
  assert.ok(want instanceof DdbstError, 'the JSON entry refuses it');
  assert.throws(f, (e) => {
    assert.ok(e instanceof DdbstError);
    assert.deepEqual([e.code, e.codeName, e.path, e.message], [want.code, want.codeName, want.path, want.message]);
    return true;
  });
}

describe('prepared operations', () => {
  const db = new Ddbst({ modelFile, cursorKeys: KEY });

  it('writes the JSON entry\'s bodies', () => {
    const put = db.prepare('put', 'Project');
    assert.equal(put.entity, 'Project');
    const v = project(1);
    const text = fast(db, () => put.text(v, { now: NOW }));
    assert.equal(text, entryText(db, { op: 'put', entity: 'Project', values: v, now: NOW }));
    assert.equal(JSON.parse(text).Item.SK.S, 'PROJECT#2026-03-02T09:00:00Z#p-001');
    assert.deepEqual(put.request(v, { now: NOW }),
                     { operation: 'PutItem', target: 'DynamoDB_20120810.PutItem', text });
    // a default filled at `now`, as the entry fills it
    const { createdAt, ...rest } = v; // eslint-disable-line no-unused-vars
    assert.equal(put.text(rest, { now: NOW }), entryText(db, { op: 'put', entity: 'Project', values: rest, now: NOW }));
    assert.match(put.text(rest, { now: NOW }), /"createdAt":\{"S":"2026-03-14T09:00:00Z"\}/);

    // numbers, booleans, Dates, bigints and NumberText by type; binary as base64
    const ev = db.prepare('put', 'Event');
    const event = { projectId: 'p-1', ts: new Date(Date.UTC(2026, 2, 14, 9)), eventId: '01JPBT5Q3K8ZQ4N7X2M9C6V0AB', type: 'created',
                    expiresAt: 1773478800 };
    assert.equal(fast(db, () => ev.text(event, { now: NOW })), entryText(db, { op: 'put', entity: 'Event', values: event, now: NOW }));
    for (const expiresAt of [1773478800n, new NumberText('1773478800')]) {
      assert.equal(fast(db, () => ev.text({ ...event, expiresAt }, { now: NOW })),
                   entryText(db, { op: 'put', entity: 'Event', values: { ...event, expiresAt: 1773478800 }, now: NOW }));
    }
    // a map value takes the JSON entry, with the same body
    const payload = { from: 'a', to: ['b', 3] };
    const [viaEntry, calls] = counted(db, () => ev.text({ ...event, payload }, { now: NOW }));
    assert.equal(calls, 1);
    assert.equal(viaEntry, entryText(db, { op: 'put', entity: 'Event', values: { ...event, payload }, now: NOW }));

    const q = db.prepare('query', 'listProjects');
    const page = db.page(JSON.stringify({ Items: [], Count: 0, ScannedCount: 0,
      LastEvaluatedKey: { PK: { S: 'ORG#acme' }, SK: { S: 'PROJECT#2026-03-02T09:00:00Z#p-001' } } }),
    { pattern: 'listProjects', values: { orgId: 'acme' }, now: NOW });
    const opts = { limit: 2, cursor: page.cursor, now: NOW };
    assert.equal(fast(db, () => q.text({ orgId: 'acme' }, opts)),
                 entryText(db, { op: 'query', pattern: 'listProjects', values: { orgId: 'acme' }, ...opts }));
    assert.match(q.text({ orgId: 'acme' }, opts), /"ExclusiveStartKey":\{"PK":\{"S":"ORG#acme"\}/);
    assert.equal(db.prepare('query', 'listProjects', { consistent: true, select: 'COUNT' }).text({ orgId: 'acme' }),
                 entryText(db, { op: 'query', pattern: 'listProjects', values: { orgId: 'acme' },
                                 consistent: true, select: 'COUNT' }));
    const key = { orgId: 'acme', projectId: 'p-001', createdAt: '2026-03-02T09:00:00Z' };
    assert.equal(db.prepare('get', 'Project', { consistent: true }).text(key),
                 entryText(db, { op: 'get', entity: 'Project', values: key, consistent: true }));
    assert.equal(db.prepare('delete', 'Project', { ifExists: true, return: 'ALL_OLD' }).text(key),
                 entryText(db, { op: 'delete', entity: 'Project', values: key, ifExists: true, return: 'ALL_OLD' }));
    const create = db.prepare('create', 'User');
    const user = { orgId: 'acme', userId: 'u-1', email: 'Ann@Example.com' };
    assert.equal(fast(db, () => create.text(user, { now: NOW })), entryText(db, { op: 'create', entity: 'User', values: user, now: NOW }));
    assert.equal(create.operation, 'TransactWriteItems');
  });

  it('throws what the JSON entry throws', () => {
    const put = db.prepare('put', 'Project');
    const v = project(1);
    const both = (values, options) => sameError(() => put.text(values, options),
      () => db.put('Project', values, options));
    both({ ...v, status: 'gone' }, { now: NOW }); // the model refuses it (EVALUE)
    both({ ...v, nam: 'x' }); // no such attribute, with "did you mean"
    both({ ...v, name: 'a\u0000b' }); // NUL, which no value may hold
    both({ ...v, name: 'a\ud800b' }); // a lone surrogate
    both({ ...v, name: 7 }); // a number for a string
    both({ orgId: 'acme' }); // required values missing
    both(v, { now: -1 });
    const q = db.prepare('query', 'listProjects');
    sameError(() => q.text({ orgId: 'acme' }, { cursor: 'AAAA', now: NOW }),
      () => db.query('listProjects', { orgId: 'acme' }, { cursor: 'AAAA', now: NOW }));
    sameError(() => q.text({ orgId: 'acme' }, { limit: 0 }),
      () => db.query('listProjects', { orgId: 'acme' }, { limit: 0 }));
    assert.throws(() => put.text(v, { limit: 3 }), (e) => e instanceof DdbstError && e.path === 'limit');
    assert.throws(() => db.prepare('put', 'Projet'), (e) => e instanceof DdbstError && e.codeName === 'ENOTFOUND' &&
      e.path === 'entity' && e.message === 'the model has no entity Projet; did you mean Project?');
    assert.throws(() => db.prepare('query', 'getUser'), (e) => e.codeName === 'EINVAL' && e.path === 'pattern');
    assert.throws(() => db.prepare('scan', 'Project'), TypeError);
    assert.throws(() => db.prepare('update', 'Project', { ifExists: true }), TypeError);
    assert.throws(() => db.prepare('update', 'Project', { return: 'ALL' }), TypeError);
    assert.throws(() => db.prepare('put', 'Project', { condition: 'x' }), TypeError);
    assert.throws(() => db.prepare('put', 'Project', { return: 'ALL_NEW' }), TypeError);
  });

  it('writes the JSON entry\'s update bodies', () => {
    const cat = new Ddbst({ modelFile: catalogFile });
    const key = { shopId: 's1', sku: 'k1' };
    const entry = (o) => entryText(cat, { op: 'update', entity: 'Product', ...o });
    const u = cat.prepare('update', 'Product');
    assert.equal(u.op, 'update');
    // SET, REMOVE (GSI1's keys go with category), ADD a delta and a string
    // set's elements, the version expected: all on the fast path
    const values = { ...key, name: 'Hat', price: 19.5, featured: true };
    const o = { remove: ['category'], add: { stock: 2, tags: ['sale', 'new'] }, expectVersion: 3, now: NOW };
    const text = fast(cat, () => u.text(values, o));
    assert.equal(text, entry({ values, ...o }));
    assert.equal(u.operation, 'UpdateItem');
    const body = JSON.parse(text);
    assert.equal(body.UpdateExpression,
                 'SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3, #n4 = :v4 REMOVE #n5, #n6, #n7 ADD #n8 :v5, #n9 :v6');
    assert.equal(body.ConditionExpression, 'attribute_exists(#n10) AND #n4 = :v7');
    assert.deepEqual(u.request(values, o), { operation: 'UpdateItem', target: 'DynamoDB_20120810.UpdateItem', text });
    // a Set, a bigint and NumberText deltas: the same bodies
    for (const add of [{ stock: 2n, tags: new Set(['sale', 'new']) }, { stock: new NumberText('2'), tags: ['sale', 'new'] }]) {
      assert.equal(fast(cat, () => u.text(values, { ...o, add })), text);
    }
    // an append, a number set and one attribute twice take the JSON entry:
    // the same body
    for (const more of [{ append: { images: ['front.png'] } }, { add: { sizes: [38, 40] } },
      { remove: ['price'] }]) {
      const [via, calls] = counted(cat, () => u.text(more.remove ? values : key, { ...more, now: NOW }));
      assert.equal(calls, 1);
      assert.equal(via, entry({ values: more.remove ? values : key, ...more, now: NOW }));
    }
    // an upsert answering with the item as it is now
    const up = cat.prepare('update', 'Product', { upsert: true, return: 'ALL_NEW', returnOnFailure: true });
    assert.equal(fast(cat, () => up.text(values, { now: NOW })),
                 entry({ values, upsert: true, return: 'ALL_NEW', returnOnFailure: true, now: NOW }));
    assert.match(up.text(values, { now: NOW }), /"ReturnValues":"ALL_NEW"/);
    // refusals are db.update's
    const both = (v, opts) => sameError(() => u.text(v, opts), () => cat.update('Product', v, opts));
    both({ ...key, status: 'gone' }); // EVALUE at Product.status
    both(key, { remove: ['nam'] }); // no such attribute
    both(key, { remove: ['sku'] }); // a primary-key facet cannot change
    both(key, { add: { name: 3 } }); // ADD on a string
    both(key, { expectVersion: 0 }); // versions start at 1
    both({ shopId: 's1' }); // which item: sku missing
    // Project has no version attribute: the entry says so
    sameError(() => db.prepare('update', 'Project').text({ orgId: 'a' }, { expectVersion: 2 }),
      () => db.update('Project', { orgId: 'a' }, { expectVersion: 2 }));
    cat.close();
  });

  it('is freed with its session', () => {
    const s = new Ddbst({ modelFile });
    const put = s.prepare('put', 'Project');
    const other = s.prepare('get', 'Project');
    other.close();
    other.close();
    assert.throws(() => other.text(project(1)), /prepared operation is closed/);
    assert.ok(put.text(project(1)).startsWith('{"TableName"'));
    s.close();
    assert.throws(() => put.text(project(1)), /session is closed/);
    put.close(); // after its session: nothing left to free
    assert.throws(() => s.prepare('put', 'Project'), /session is closed/);
  });
});

const skip = process.env.DDBST_ENDPOINT ? false : 'DDBST_ENDPOINT is not set';
if (skip) console.log(`prepared.test: DynamoDB Local part skipped: ${skip}`);

describe('prepared operations through the AWS SDK', { skip }, () => {
  it('puts and pages by text sent as it is', async () => {
    const client = new DynamoDBClient({ endpoint: process.env.DDBST_ENDPOINT,
                                        region: process.env.AWS_REGION || 'us-east-1' });
    const db = new Ddbst({ modelFile, cursorKeys: KEY, table: `prepared-js-${Date.now()}-${process.pid}` });
    const table = new Table(db, client);
    try {
      await table.createTable();
      const put = db.prepare('put', 'Project');
      for (let n = 0; n < 5; n++) await table.send(put.request(project(n), { now: NOW }));
      // read back by the SDK's own GetItem: every attribute as ddbst wrote it
      const got = await client.send(new GetItemCommand(db.get('Project', project(3)).body));
      assert.deepEqual(got.Item, JSON.parse(put.text(project(3), { now: NOW })).Item);
      // refused by DynamoDB: the SDK's exception, as a DynamoDBError
      const create = db.prepare('create', 'Project');
      await assert.rejects(table.send(create.request(project(3), { now: NOW })),
                           (e) => e.name === 'DynamoDBError' && e.kind === 'ConditionalCheckFailed');
      // newest first, two a page, each next page from the cursor
      const q = db.prepare('query', 'listProjects');
      const seen = [];
      let cursor;
      for (let i = 0; i < 4; i++) {
        const out = await table.send(q.request({ orgId: 'acme' }, { limit: 2, cursor }));
        const page = db.page(out, { pattern: 'listProjects', values: { orgId: 'acme' } });
        seen.push(...page.items.map((x) => x.item.projectId));
        if (!page.hasMore) break;
        cursor = page.cursor;
      }
      assert.deepEqual(seen, ['p-004', 'p-003', 'p-002', 'p-001', 'p-000']);
    } finally {
      await table.deleteTable().catch(() => {});
      db.close();
    }
  });

  it('updates by text sent as it is, read back', async () => {
    const client = new DynamoDBClient({ endpoint: process.env.DDBST_ENDPOINT,
                                        region: process.env.AWS_REGION || 'us-east-1' });
    const db = new Ddbst({ modelFile: catalogFile, table: `prepared-update-js-${Date.now()}-${process.pid}` });
    const table = new Table(db, client);
    try {
      await table.createTable();
      const key = { shopId: 's1', sku: 'k1' };
      const created = db.prepare('create', 'Product');
      await table.send(created.request({ ...key, name: 'Cap', category: 'hats', stock: 5, tags: ['summer'],
                                         releasedAt: '2026-03-01T00:00:00Z' }, { now: NOW }));
      const u = db.prepare('update', 'Product', { return: 'UPDATED_NEW' });
      const out = await table.send(u.request({ ...key, name: 'Hat', price: 19.5 },
        { remove: ['category'], add: { stock: 2, tags: ['sale'] }, expectVersion: 1, now: NOW }));
      // what the update wrote, as it is now
      assert.deepEqual(out.Attributes.stock, { N: '7' });
      assert.deepEqual(out.Attributes.version, { N: '2' });
      const got = await client.send(new GetItemCommand({ TableName: db.get('Product', key).body.TableName,
                                                         Key: { PK: { S: 'SHOP#s1' }, SK: { S: 'PRODUCT#k1' } } }));
      const item = got.Item;
      assert.deepEqual(item.name, { S: 'Hat' });
      assert.deepEqual(item.price, { N: '19.5' });
      assert.deepEqual(item.stock, { N: '7' });
      assert.deepEqual([...item.tags.SS].sort(), ['sale', 'summer']);
      assert.deepEqual(item.version, { N: '2' });
      assert.deepEqual(item.updatedAt, { S: '2026-03-14T09:00:00.000Z' });
      // category REMOVEd, and the item out of GSI1 with it
      assert.equal(item.category, undefined);
      assert.equal(item.GSI1PK, undefined);
      assert.equal(item.GSI1SK, undefined);
      // the version it no longer has: refused by DynamoDB, the item as it was
      await assert.rejects(table.send(u.request({ ...key, name: 'Old' }, { expectVersion: 1, now: NOW })),
                           (e) => e.name === 'DynamoDBError' && e.kind === 'ConditionalCheckFailed');
      // a missing item is no update (no upsert): refused too
      await assert.rejects(table.send(u.request({ shopId: 's1', sku: 'none', name: 'X' }, { now: NOW })),
                           (e) => e.name === 'DynamoDBError' && e.kind === 'ConditionalCheckFailed');
      const again = await client.send(new GetItemCommand({ TableName: db.get('Product', key).body.TableName,
                                                           Key: { PK: { S: 'SHOP#s1' }, SK: { S: 'PRODUCT#k1' } } }));
      assert.deepEqual(again.Item.name, { S: 'Hat' });
    } finally {
      await table.deleteTable().catch(() => {});
      db.close();
    }
  });
});
