#!/usr/bin/env node
// The peers' side of tests/bench/compare: the operations ddbst_bench times,
// done the way a Node service does them today — ElectroDB's params() then
// JSON.stringify, and @aws-sdk/util-dynamodb's unmarshall after JSON.parse
// where ElectroDB has no equivalent — on the same values and the same
// response bytes. Prints one tab-separated line per operation: name, median
// ns/op, MB/s for the parsers (MB = 10^6 bytes) else "-", the fastest and
// slowest batch's ns/op, and what the peer does.
//
//   node tests/bench/peers.js --page PAGE.json [--quick] [--only NAME] [--show]
//
// The packages come from tests/node_modules (tests/package.json), which Node
// finds from this file's directory wherever it is run from.
'use strict';

const fs = require('fs');
const { Entity, Service, createConversions } = require('electrodb');
const { marshall, unmarshall } = require('@aws-sdk/util-dynamodb');

// ---- the SaaS model, as an ElectroDB user writes it ----------------------
// Same table, same key templates as examples/saas/model.json. Casing "none"
// keeps ElectroDB from lower-casing keys (ddbst never changes case unless
// the model asks). The unique email is a guard entity written in the same
// transaction: ElectroDB has no unique constraints of its own.

const TABLE = 'saas-api-dev';
const none = 'none';

function makeModel() {
  const Organisation = new Entity({
    model: { entity: 'Organisation', version: '1', service: 'saas' },
    attributes: {
      orgId: { type: 'string', required: true },
      name: { type: 'string' },
      plan: { type: 'string' },
      createdAt: { type: 'string', default: () => new Date().toISOString() },
    },
    indexes: {
      byId: {
        pk: { field: 'PK', composite: ['orgId'], template: 'ORG#${orgId}', casing: none },
        sk: { field: 'SK', composite: ['orgId'], template: 'ORG#${orgId}', casing: none },
      },
    },
  }, { table: TABLE });

  const User = new Entity({
    model: { entity: 'User', version: '1', service: 'saas' },
    attributes: {
      orgId: { type: 'string', required: true },
      userId: { type: 'string', required: true },
      email: { type: 'string', required: true },
      role: { type: 'string' },
      name: { type: 'string' },
    },
    indexes: {
      byOrg: {
        pk: { field: 'PK', composite: ['orgId'], template: 'ORG#${orgId}', casing: none },
        sk: { field: 'SK', composite: ['userId'], template: 'USER#${userId}', casing: none },
      },
      byEmail: {
        index: 'GSI1',
        pk: { field: 'GSI1PK', composite: ['email'], template: 'EMAIL#${email}', casing: 'lower' },
      },
    },
  }, { table: TABLE });

  const UserEmail = new Entity({
    model: { entity: 'UserEmail', version: '1', service: 'saas' },
    attributes: {
      email: { type: 'string', required: true },
      orgId: { type: 'string', required: true },
      userId: { type: 'string', required: true },
    },
    indexes: {
      byEmail: {
        pk: { field: 'PK', composite: ['email'], template: 'EMAIL#${email}', casing: 'lower' },
        sk: { field: 'SK', composite: ['email'], template: 'EMAIL#${email}', casing: 'lower' },
      },
    },
  }, { table: TABLE });

  const Project = new Entity({
    model: { entity: 'Project', version: '1', service: 'saas' },
    attributes: {
      orgId: { type: 'string', required: true },
      projectId: { type: 'string', required: true },
      createdAt: { type: 'string', required: true, default: () => new Date().toISOString() },
      name: { type: 'string' },
      status: { type: ['active', 'archived'] },
    },
    indexes: {
      projects: {
        pk: { field: 'PK', composite: ['orgId'], template: 'ORG#${orgId}', casing: none },
        sk: {
          field: 'SK', composite: ['createdAt', 'projectId'],
          template: 'PROJECT#${createdAt}#${projectId}', casing: none,
        },
      },
      byStatus: {
        index: 'GSI2',
        pk: { field: 'GSI2PK', composite: ['status'], template: 'STATUS#${status}', casing: none },
        sk: { field: 'GSI2SK', composite: ['createdAt'], template: '${createdAt}', casing: none },
      },
    },
  }, { table: TABLE });

  const Event = new Entity({
    model: { entity: 'Event', version: '1', service: 'saas' },
    attributes: {
      projectId: { type: 'string', required: true },
      ts: { type: 'string', required: true },
      eventId: { type: 'string', required: true },
      type: { type: 'string' },
      payload: { type: 'any' },
      expiresAt: { type: 'number' },
    },
    indexes: {
      byProject: {
        pk: { field: 'PK', composite: ['projectId'], template: 'PROJECT#${projectId}', casing: none },
        sk: { field: 'SK', composite: ['ts', 'eventId'], template: 'EVENT#${ts}#${eventId}', casing: none },
      },
    },
  }, { table: TABLE });

  const service = new Service({ Organisation, User, UserEmail, Project, Event });
  // ElectroDB's documented key and cursor conversions for one entity.
  const projectKeys = createConversions(Project);
  return { Organisation, User, UserEmail, Project, Event, service, projectKeys };
}

// ---- the data: the same values ddbst_bench uses (bench.c, "the data") -----

const ORG = 'acme-7f3a';
const PROJECT = {
  orgId: ORG, projectId: 'p-0001', createdAt: '2026-03-14T09:00:00Z',
  name: 'Website relaunch', status: 'active',
};
const USER = {
  orgId: ORG, userId: 'u-0042', email: 'Ann.Lee@Example.com', role: 'admin',
  name: 'Ann Lee',
};
const CURSOR_KEY = {  // the LastEvaluatedKey of the listing's first page
  PK: 'ORG#acme-7f3a', SK: 'PROJECT#2026-03-14T06:12:00Z#p-0025',
};

// ---- timing ---------------------------------------------------------------

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

let sink = 0;  // keeps results alive so nothing is optimised away

// Median ns/op over `batches` batches of `iters` calls, after at least
// `warm` calls and `warmMs` milliseconds of them (V8 optimises hot code
// only after a while; timing before that would flatter ddbst).
function time(fn, { iters, batches, warm, warmMs }) {
  const until = process.hrtime.bigint() + BigInt(warmMs) * 1000000n;
  for (let i = 0; i < warm || process.hrtime.bigint() < until; i++) {
    sink ^= fn().length | 0;
  }
  const per = [];
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) sink ^= fn().length | 0;
    const t1 = process.hrtime.bigint();
    per.push(Number(t1 - t0) / iters);
  }
  return { median: median(per), min: Math.min(...per), max: Math.max(...per) };
}

// ---- the operations -------------------------------------------------------

function operations(m, page) {
  const { Project, service, projectKeys } = m;
  const cursor = projectKeys.fromKeys.toCursor(CURSOR_KEY);
  return [
    {
      name: 'keys_project',
      what: 'ElectroDB conversions.fromComposite.toKeys + JSON.stringify',
      fn: () => JSON.stringify(projectKeys.fromComposite.toKeys({
        orgId: PROJECT.orgId, projectId: PROJECT.projectId,
        createdAt: PROJECT.createdAt, status: PROJECT.status,
      })),
    },
    {
      name: 'query_first_page',
      what: 'ElectroDB query.projects().params({order, limit}) + JSON.stringify',
      fn: () => JSON.stringify(Project.query.projects({ orgId: ORG })
        .params({ order: 'desc', limit: 25 })),
    },
    {
      name: 'query_cursor',
      // params() leaves the cursor out (only go() reads it): add the
      // ExclusiveStartKey the way go() does, from ElectroDB's own cursor.
      what: 'the same + ExclusiveStartKey from fromCursor.toKeys (unsealed cursor)',
      fn: () => {
        const params = Project.query.projects({ orgId: ORG })
          .params({ order: 'desc', limit: 25 });
        params.ExclusiveStartKey = projectKeys.fromCursor.toKeys(cursor);
        return JSON.stringify(params);
      },
    },
    {
      name: 'put_project',
      what: 'ElectroDB put().params() + JSON.stringify',
      fn: () => JSON.stringify(Project.put({
        orgId: PROJECT.orgId, projectId: PROJECT.projectId,
        createdAt: PROJECT.createdAt, name: PROJECT.name, status: PROJECT.status,
      }).params()),
    },
    {
      // No library: the keys by template literal, then marshall. The floor of
      // what a Node service can do for the same body (the issue's 3.2 us).
      name: 'put_project_marshall',
      what: 'hand-built Put body: marshall + JSON.stringify (no ElectroDB)',
      fn: () => {
        const p = {
          orgId: PROJECT.orgId, projectId: PROJECT.projectId,
          createdAt: PROJECT.createdAt, name: PROJECT.name, status: PROJECT.status,
        };
        return JSON.stringify({
          TableName: TABLE,
          Item: marshall({
            PK: `ORG#${p.orgId}`, SK: `PROJECT#${p.createdAt}#${p.projectId}`,
            GSI2PK: `STATUS#${p.status}`, GSI2SK: p.createdAt, _type: 'Project', ...p,
          }),
        });
      },
    },
    {
      name: 'create_user',
      what: 'ElectroDB transaction.write([User.create, UserEmail.create]).params() + JSON.stringify',
      fn: () => JSON.stringify(service.transaction.write(({ User: U, UserEmail: E }) => [
        U.create({
          orgId: USER.orgId, userId: USER.userId, email: USER.email,
          role: USER.role, name: USER.name,
        }).commit(),
        E.create({ email: USER.email, orgId: USER.orgId, userId: USER.userId }).commit(),
      ]).params()),
    },
    {
      name: 'update_project_status',
      what: 'ElectroDB patch().set({status}).params() + JSON.stringify',
      fn: () => JSON.stringify(Project.patch({
        orgId: PROJECT.orgId, createdAt: PROJECT.createdAt, projectId: PROJECT.projectId,
      }).set({ status: 'archived' }).params()),
    },
    {
      name: 'cursor_seal',
      what: 'ElectroDB fromKeys.toCursor (base64url JSON, no sealing)',
      fn: () => projectKeys.fromKeys.toCursor(CURSOR_KEY),
    },
    {
      name: 'cursor_seal_open',
      what: 'ElectroDB fromKeys.toCursor + fromCursor.toKeys (no sealing)',
      fn: () => JSON.stringify(projectKeys.fromCursor.toKeys(
        projectKeys.fromKeys.toCursor(CURSOR_KEY))),
    },
    page && {
      name: 'parse_typed',
      what: 'JSON.parse + unmarshall of every item',
      bytes: Buffer.byteLength(page),
      fn: () => JSON.parse(page).Items.map((it) => unmarshall(it)),
    },
    page && {
      name: 'parse_json',
      what: 'JSON.parse + unmarshall + JSON.stringify of every item',
      bytes: Buffer.byteLength(page),
      fn: () => JSON.parse(page).Items.map((it) => JSON.stringify(unmarshall(it))),
    },
    {
      name: 'model_load',
      what: 'new Entity x5 + new Service + createConversions',
      fn: () => Object.keys(makeModel()),
    },
  ].filter(Boolean);
}

// Iterations per batch: fixed, sized so a batch of the peer takes ~1-20 ms.
const PLAN = {
  keys_project: 2000, query_first_page: 500, query_cursor: 500, put_project: 500,
  put_project_marshall: 2000,
  create_user: 200, update_project_status: 200, cursor_seal: 5000,
  cursor_seal_open: 2000, parse_typed: 2, parse_json: 2, model_load: 50,
};

function main() {
  const args = process.argv.slice(2);
  const opt = { quick: false, only: null, show: false, page: null };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--quick') opt.quick = true;
    else if (args[i] === '--show') opt.show = true;
    else if (args[i] === '--only') opt.only = args[++i];
    else if (args[i] === '--page') opt.page = args[++i];
    else { console.error(`peers.js: unknown argument ${args[i]}`); process.exit(2); }
  }
  const page = opt.page ? fs.readFileSync(opt.page, 'utf8') : null;
  const m = makeModel();
  const ops = operations(m, page).filter((o) => !opt.only || o.name === opt.only);
  if (opt.show) {
    for (const o of ops) console.log(`${o.name}: ${o.bytes ? `(${o.bytes} bytes)` : o.fn()}`);
    return;
  }
  const batches = opt.quick ? 5 : 31;
  for (const o of ops) {
    const iters = opt.quick ? Math.max(1, PLAN[o.name] >> 3) : PLAN[o.name];
    const warm = o.bytes ? 10 : Math.max(iters * 2, 200);
    const t = time(o.fn, { iters, batches, warm, warmMs: opt.quick ? 300 : 1000 });
    const mbs = o.bytes ? (o.bytes / t.median) * 1e3 : 0;  // bytes/ns * 1e9 / 1e6
    console.log([o.name, t.median.toFixed(1), mbs ? mbs.toFixed(1) : '-',
      t.min.toFixed(1), t.max.toFixed(1), o.what].join('\t'));
  }
  if (sink === 0.5) console.log('');  // never true; uses sink
}

main();
