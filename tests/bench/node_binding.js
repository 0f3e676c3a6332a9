#!/usr/bin/env node
// The Node binding's side of tests/bench/compare: what a call costs through
// bindings/node (koffi, the JSON entry, the answer parsed back) on the same
// operations and values as ddbst_bench and peers.js, so that compare can
// put it beside ElectroDB's params() (issue 22 item 4: >= 20x). Prints
// peers.js's tab-separated lines: name, median ns/op, MB/s or "-", the
// fastest and slowest batch's ns/op, and what the call does.
//
//   NODE_PATH=tests/node_modules node tests/bench/node_binding.js \
//       --library PATH --page PAGE.json [--quick] [--only NAME] [--show]
//
// The binding comes from bindings/node as it is in the tree, koffi from
// tests/node_modules (tests/package.json: NODE_PATH, as compare sets it),
// the library from --library (compare gives build/release's); PAGE.json is
// ddbst_bench --write-page's, of which the first 100 items are a page.
'use strict';

const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..', '..');
const NOW = 1773478800000000; // BENCH_NOW, microseconds
const ORG = 'acme-7f3a';
const PROJECT = {
  orgId: ORG, projectId: 'p-0001', createdAt: '2026-03-14T09:00:00Z',
  name: 'Website relaunch', status: 'active',
};
const KEY = '00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210';

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

let sink = 0;

// As peers.js: median ns/op over batches, after warm-up calls and time.
function time(fn, { iters, batches, warm, warmMs }) {
  const until = process.hrtime.bigint() + BigInt(warmMs) * 1000000n;
  for (let i = 0; i < warm || process.hrtime.bigint() < until; i++) sink ^= fn() ? 1 : 0;
  const per = [];
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) sink ^= fn() ? 1 : 0;
    per.push(Number(process.hrtime.bigint() - t0) / iters);
  }
  return { median: median(per), min: Math.min(...per), max: Math.max(...per) };
}

// The first page of the listing (the Items of the 1 MiB page, cut to 100)
// as DynamoDB answers it, with the LastEvaluatedKey of its last item.
function hundredItems(pageText) {
  const page = JSON.parse(pageText);
  const items = page.Items.slice(0, 100);
  const last = items[items.length - 1];
  return JSON.stringify({
    Items: items, Count: items.length, ScannedCount: items.length,
    LastEvaluatedKey: { PK: last.PK, SK: last.SK },
  });
}

function main() {
  const args = process.argv.slice(2);
  const opt = { quick: false, only: null, show: false, page: null, library: null };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--quick') opt.quick = true;
    else if (args[i] === '--show') opt.show = true;
    else if (args[i] === '--only') opt.only = args[++i];
    else if (args[i] === '--page') opt.page = args[++i];
    else if (args[i] === '--library') opt.library = args[++i];
    else { console.error(`node_binding.js: unknown argument ${args[i]}`); process.exit(2); }
  }
  const { Ddbst } = require(path.join(root, 'bindings', 'node', 'index.cjs'));
  const db = new Ddbst({
    modelFile: path.join(root, 'examples', 'saas', 'model.json'),
    cursorKeys: KEY,
    library: opt.library || undefined,
  });
  if (!opt.page) { console.error('node_binding.js: --page PAGE.json is required'); process.exit(2); }
  const pageText = hundredItems(fs.readFileSync(opt.page, 'utf8'));
  const first = db.page(pageText, { pattern: 'listProjects', values: { orgId: ORG }, now: NOW });
  const putValues = () => ({
    orgId: PROJECT.orgId, projectId: PROJECT.projectId,
    createdAt: PROJECT.createdAt, name: PROJECT.name, status: PROJECT.status,
  });
  const prepPut = db.prepare('put', 'Project');
  const prepQuery = db.prepare('query', 'listProjects');
  const putAnswer = db.callText({ op: 'put', entity: 'Project', values: putValues(), now: NOW });
  const ops = [
    {
      // What any binding of a JSON entry pays in Node before ddbst does
      // anything: the request's text written, the answer's text parsed.
      name: 'node_json_floor',
      what: 'no ddbst: JSON.stringify of the put request + JSON.parse of its answer',
      fn: () => JSON.parse(JSON.stringify({ op: 'put', entity: 'Project', values: putValues(), now: NOW }).length
        ? putAnswer : ''),
    },
    {
      name: 'node_put_project',
      peer: 'put_project',
      what: 'Ddbst.put(Project) through koffi: stringify, call, parse',
      fn: () => db.put('Project', putValues(), { now: NOW }),
    },
    {
      name: 'node_query_first_page',
      peer: 'query_first_page',
      what: 'Ddbst.query(listProjects, {limit: 25})',
      fn: () => db.query('listProjects', { orgId: ORG }, { limit: 25 }),
    },
    {
      name: 'node_query_cursor',
      peer: 'query_cursor',
      what: 'the same with the sealed cursor of a 100-item page',
      fn: () => db.query('listProjects', { orgId: ORG }, { limit: 25, cursor: first.cursor, now: NOW }),
    },
    {
      // Prepared operations (lib/prepared.cjs): the body's text, which is
      // what ElectroDB's row gives too (params() + JSON.stringify)
      name: 'node_prepared_put',
      peer: 'put_project',
      what: "db.prepare('put', 'Project').text(values): the PutItem body's text",
      fn: () => prepPut.text(putValues(), { now: NOW }),
    },
    {
      name: 'node_prepared_put_object',
      peer: 'put_project',
      what: 'the same + JSON.parse: the body as an object (SDK command input, no binary)',
      fn: () => JSON.parse(prepPut.text(putValues(), { now: NOW })),
    },
    {
      name: 'node_prepared_query_cursor',
      peer: 'query_cursor',
      what: "db.prepare('query', 'listProjects').text(values, {limit, cursor}): the Query body's text",
      fn: () => prepQuery.text({ orgId: ORG }, { limit: 25, cursor: first.cursor, now: NOW }),
    },
    {
      name: 'node_page_100',
      what: 'Ddbst.page of 100 Projects + next cursor',
      bytes: Buffer.byteLength(pageText),
      fn: () => db.page(pageText, { pattern: 'listProjects', values: { orgId: ORG }, now: NOW }),
    },
  ].filter((o) => !opt.only || o.name === opt.only);
  if (opt.show) {
    for (const o of ops) console.log(`${o.name}: ${JSON.stringify(o.fn())}`);
    db.close();
    return;
  }
  const PLAN = { node_json_floor: 5000, node_put_project: 2000, node_query_first_page: 2000, node_query_cursor: 1000, node_page_100: 20,
    node_prepared_put: 20000, node_prepared_put_object: 10000, node_prepared_query_cursor: 10000 };
  const batches = opt.quick ? 5 : 31;
  for (const o of ops) {
    const iters = opt.quick ? Math.max(1, PLAN[o.name] >> 3) : PLAN[o.name];
    const t = time(o.fn, { iters, batches, warm: Math.max(iters * 2, 200), warmMs: opt.quick ? 300 : 1000 });
    const mbs = o.bytes ? (o.bytes / t.median) * 1e3 : 0;
    console.log([o.name, t.median.toFixed(1), mbs ? mbs.toFixed(1) : '-',
      t.min.toFixed(1), t.max.toFixed(1), o.what].join('\t'));
  }
  db.close();
  if (sink === 0.5) console.log('');
}

main();
