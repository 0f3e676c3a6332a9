'use strict';
// The `ddbst view` page as a reviewer sees it: Debian's chromium, driven by
// playwright-core, opens the file from disk (no server, no network), and
// for every access pattern of the SaaS and blog models the rows the page
// lights up are exactly the items the pattern's request returns from
// DynamoDB Local loaded with `ddbst view --data`, in order. Also: every
// control is reachable and usable from the keyboard, a narrow window
// needs no sideways scrolling of the page, and screenshots of each state
// land in the build tree (DDBST_VIEW_OUT, default build/default/view).
// Run: scripts/dynamodb-local node --test tests/view/
// The requests go through @aws-sdk/client-dynamodb, as a user's would.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');
const {
  DynamoDBClient, CreateTableCommand, DeleteTableCommand,
  BatchWriteItemCommand, QueryCommand, GetItemCommand,
} = require('@aws-sdk/client-dynamodb');

const root = path.join(__dirname, '..', '..');
const ddbst = process.env.DDBST_CLI || path.join(root, 'build', 'default', 'ddbst');
const out = process.env.DDBST_VIEW_OUT || path.join(root, 'build', 'default', 'view');
const endpoint = process.env.DDBST_ENDPOINT;

const client = new DynamoDBClient({
  endpoint, region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

function run(args) {
  return execFileSync(ddbst, args, { encoding: 'utf8', cwd: root });
}

// The page never asks the network for anything: no CDN, no font, no API.
const launchArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                    '--no-first-run', '--disable-background-networking',
                    '--disable-component-update', '--disable-sync'];

async function browser() {
  // a fresh profile each run (launchPersistentContext passes it as
  // --user-data-dir, which launch() will not take in its args)
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ddbst-view-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: launchArgs,
    viewport: { width: 1400, height: 1000 },
  });
  return { context, close: async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  } };
}

// Creates the model's table under `table` and loads the view's sample.
async function load(model, table) {
  const [op, body] = run(['--table', table, 'create-table', model]).trimEnd().split('\t');
  assert.equal(op, 'CreateTable');
  await client.send(new CreateTableCommand(JSON.parse(body)));
  const lines = run(['--table', table, 'view', model, '--data']).trimEnd().split('\n');
  let items = 0;
  for (const line of lines) {
    let request = JSON.parse(line);
    items += request.RequestItems[table].length;
    assert.ok(request.RequestItems[table].length <= 25);
    for (let tries = 0; request; tries++) {
      assert.ok(tries < 10, 'BatchWriteItem kept items unprocessed');
      const answer = await client.send(new BatchWriteItemCommand(request));
      const left = answer.UnprocessedItems && answer.UnprocessedItems[table];
      request = left && left.length ? { RequestItems: answer.UnprocessedItems } : null;
    }
  }
  return items;
}

// What DynamoDB answers to the request the page shows: [PK, SK] pairs.
async function ask(operation, body, pk, sk) {
  const keyOf = (item) => [item[pk].S, sk ? item[sk].S : ''];
  if (operation === 'GetItem') {
    const answer = await client.send(new GetItemCommand(body));
    return { keys: answer.Item ? [keyOf(answer.Item)] : [], more: false };
  }
  assert.equal(operation, 'Query');
  const answer = await client.send(new QueryCommand(body));
  return { keys: answer.Items.map(keyOf), more: !!answer.LastEvaluatedKey };
}

// The rows the page lights up, in the order it numbers them.
async function litRows(page) {
  return page.$$eval('#grid tbody tr.lit', (rows) => rows
    .map((r) => [Number(r.dataset.order), r.dataset.pk, r.dataset.sk])
    .sort((a, b) => a[0] - b[0]));
}

// every kind of index: template GSIs (saas, blog), multi-attribute (games),
// inverted (orgchart), local (mailbox)
const patternCount = { saas: 7, blog: 7, games: 4, orgchart: 6, mailbox: 5 };
for (const name of Object.keys(patternCount)) {
  test(`every ${name} pattern lights up exactly what DynamoDB Local returns`, async (t) => {
    assert.ok(endpoint, 'DDBST_ENDPOINT is not set: run under scripts/dynamodb-local');
    fs.mkdirSync(out, { recursive: true });
    const model = path.join('examples', name, 'model.json');
    const table = `ddbst-view-${name}-${process.pid}-${Date.now()}`;
    const items = await load(model, table);
    t.after(() => client.send(new DeleteTableCommand({ TableName: table })));
    const file = path.join(out, `${name}.html`);
    run(['--table', table, 'view', model, '-o', file]);

    const b = await browser();
    t.after(() => b.close());
    const page = await b.context.newPage();
    const asked = [];
    page.on('request', (r) => asked.push(r.url()));
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('file://' + file);
    const view = await page.evaluate(() =>
      JSON.parse(document.getElementById('ddbst-view').textContent));
    assert.equal(view.items.length, items, 'the page shows the items --data loads');
    assert.equal(await page.locator('#grid tbody tr').count(), items);
    await page.screenshot({ path: path.join(out, `${name}-table.png`), fullPage: true });

    assert.equal(view.patterns.length, patternCount[name]);
    for (const p of view.patterns) {
      await page.click(`[data-pattern="${p.name}"]`);
      assert.equal(await page.getAttribute(`[data-pattern="${p.name}"]`, 'aria-pressed'), 'true');
      const body = JSON.parse(await page.textContent('pre[data-request-body]'));
      const operation = await page.getAttribute('pre[data-request-body]', 'data-operation');
      const index = p.index ? view.indexes.find((i) => i.name === p.index) : null;
      const lit = await litRows(page);
      const got = await ask(operation, body, view.table.partitionKey, view.table.sortKey);
      assert.ok(got.keys.length > 0, `${p.name}: the sample holds items it reads`);
      const shown = lit.map((r) => [r[1], r[2]]);
      if (index && !index.sortKey) {
        // no sort key: DynamoDB promises no order, so compare the sets
        assert.deepEqual([...shown].sort(), [...got.keys].sort(), p.name);
      } else {
        assert.deepEqual(shown, got.keys, `${p.name}: rows lit in DynamoDB's order`);
      }
      assert.deepEqual(lit.map((r) => r[0]), shown.map((_, i) => i + 1));
      if (p.more) assert.ok(got.more, `${p.name}: the page says a next page exists`);
      // the grid shows the index the pattern reads
      const caption = await page.textContent('#grid caption');
      assert.ok(caption.startsWith(index ? `Index ${index.name}` : `Table ${table}`), caption);
      await page.screenshot({ path: path.join(out, `${name}-${p.name}.png`) });
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(asked.filter((u) => !u.startsWith('file:')), [],
                     'the page asked for something that is not in the file');
  });
}

test('the page is usable from the keyboard and in a narrow window', async (t) => {
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, 'saas-keyboard.html');
  run(['view', path.join('examples', 'saas', 'model.json'), '-o', file]);
  const b = await browser();
  t.after(() => b.close());
  const page = await b.context.newPage();
  await page.goto('file://' + file);
  const controls = await page.$$eval('nav button', (bs) => bs.map((x) => x.textContent));
  // Tab reaches every control, in order, and nothing else is a trap
  const reached = new Set();
  for (let i = 0; i < controls.length + 3; i++) {
    await page.keyboard.press('Tab');
    const text = await page.evaluate(() =>
      document.activeElement && document.activeElement.closest('nav button')
        ? document.activeElement.textContent : null);
    if (text) reached.add(text);
  }
  assert.deepEqual([...reached].sort(), [...controls].sort());
  // Enter on a pattern chooses it; the arrow keys move along the list
  await page.focus('[data-pattern="listProjects"]');
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('[data-pattern="listProjects"]', 'aria-pressed'), 'true');
  assert.ok((await page.locator('#grid tr.lit').count()) > 0);
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.pattern), 'listEvents');
  await page.keyboard.press(' ');
  assert.equal(await page.getAttribute('[data-pattern="listEvents"]', 'aria-pressed'), 'true');
  // focus is visible
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  await page.screenshot({ path: path.join(out, 'saas-keyboard.png') });

  // a phone's width: the page itself does not scroll sideways (the grid
  // scrolls in its own box), and the patterns come before the items
  await page.setViewportSize({ width: 375, height: 800 });
  const fit = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth, window: window.innerWidth,
    nav: document.querySelector('nav').getBoundingClientRect().bottom,
    main: document.querySelector('main').getBoundingClientRect().top,
  }));
  assert.ok(fit.page <= fit.window, `the page is ${fit.page}px wide in a ${fit.window}px window`);
  assert.ok(fit.nav <= fit.main, 'the navigation stacks above the items');
  await page.screenshot({ path: path.join(out, 'saas-narrow.png'), fullPage: false });
});
