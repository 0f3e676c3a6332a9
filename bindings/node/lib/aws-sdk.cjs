'use strict';
// ddbst through the AWS SDK for JavaScript (v3): ddbst builds every request
// and reads every answer, the SDK signs, sends and retries.
//
//   const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
//   const { Ddbst } = require('ddbst');
//   const { Table } = require('ddbst/aws-sdk');
//   const table = new Table(new Ddbst({ modelFile: 'model.json', cursorKeys }), new DynamoDBClient({}));
//   await table.put('Order', { customerId: 'c1', total: '9.90' });
//
// Binary goes to the SDK as Uint8Array (it base64-encodes it itself) and
// comes back from its outputs as Uint8Array; numbers travel as DynamoDB's
// text. @aws-sdk/client-dynamodb is a peer dependency: the project's own.

const { DdbstError, DynamoDBError, isSdkError } = require('./ddbst.cjs');

let sdk;
function commands() {
  if (!sdk) sdk = require('@aws-sdk/client-dynamodb');
  return sdk;
}

const COMMANDS = {
  GetItem: 'GetItemCommand', PutItem: 'PutItemCommand', UpdateItem: 'UpdateItemCommand',
  DeleteItem: 'DeleteItemCommand', Query: 'QueryCommand', BatchGetItem: 'BatchGetItemCommand',
  BatchWriteItem: 'BatchWriteItemCommand', TransactWriteItems: 'TransactWriteItemsCommand',
  TransactGetItems: 'TransactGetItemsCommand', CreateTable: 'CreateTableCommand',
  DescribeTable: 'DescribeTableCommand', DeleteTable: 'DeleteTableCommand',
  UpdateTable: 'UpdateTableCommand', Scan: 'ScanCommand',
  UpdateContinuousBackups: 'UpdateContinuousBackupsCommand',
  UpdateContributorInsights: 'UpdateContributorInsightsCommand',
  UpdateTimeToLive: 'UpdateTimeToLiveCommand',
};

// A request body for the SDK: {"B": base64} and {"BS": [...]} as bytes.
function bodyToSdk(v) {
  if (Array.isArray(v)) return v.map(bodyToSdk);
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 1) {
      if (keys[0] === 'B' && typeof v.B === 'string') return { B: new Uint8Array(Buffer.from(v.B, 'base64')) };
      if (keys[0] === 'BS' && Array.isArray(v.BS)) {
        return { BS: v.BS.map((x) => new Uint8Array(Buffer.from(x, 'base64'))) };
      }
    }
    const out = {};
    for (const k of keys) out[k] = bodyToSdk(v[k]);
    return out;
  }
  return v;
}

// A request of a prepared operation ({operation, target, text}) goes as
// ddbst wrote it: the SDK serializes an empty input (its headers,
// X-Amz-Target and Content-Type, are the command's), and this middleware,
// inside the serializer and before Content-Length and signing, puts the
// body text in its place. Nothing is parsed or written again in JavaScript.
const RAW_BODY = { step: 'build', priority: 'high', name: 'ddbstPreparedBody', override: true };
function rawBody(text) {
  return (next) => (args) => {
    if (args.request && typeof args.request === 'object') args.request.body = text;
    return next(args);
  };
}

// The SDK command of a ddbst request ({operation, target, body}, or a
// prepared operation's {operation, target, text}).
function command(request) {
  const name = COMMANDS[request.operation];
  if (!name) throw new TypeError(`not a request ddbst builds: ${request.operation}`);
  if (typeof request.text === 'string') {
    const cmd = new (commands()[name])({});
    cmd.middlewareStack.add(rawBody(request.text), RAW_BODY);
    return cmd;
  }
  return new (commands()[name])(bodyToSdk(request.body));
}

// Sends one request through a DynamoDBClient; the SDK's output, or its
// exception.
async function send(client, request) {
  return client.send(command(request));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Table {
  // db: a Ddbst session; client: a DynamoDBClient (its retry strategy and
  // maxAttempts apply to throttling). Batches are re-sent until DynamoDB
  // has processed every item, unprocessedAttempts times at most.
  constructor(db, client, { unprocessedAttempts = 8 } = {}) {
    this.db = db;
    this.client = client;
    this.unprocessedAttempts = unprocessedAttempts;
  }

  // The SDK's output to a built request. Its exception becomes a
  // DynamoDBError; with `write` (the request object the body was built
  // from) a refusal is explained in the model's words.
  async send(request, write) {
    try {
      return await send(this.client, request);
    } catch (e) {
      if (!isSdkError(e)) throw e;
      throw this._error(e, write);
    }
  }

  _error(e, write) {
    if (write) {
      let why;
      try {
        why = this.db.explain(e, write);
      } catch (refused) {
        if (!(refused instanceof DdbstError)) throw refused;
      }
      if (why) {
        const d = why.dynamodb;
        const err = new DynamoDBError(
          { code: -12, name: 'EDYNAMODB', path: '__type', message: why.explanation.replace(/\n$/, '') },
          why, { cause: e });
        err.explanation = why.explanation;
        err.reason = why.kind;
        if (why.failures) err.failures = why.failures;
        err.type = d.type;
        return err;
      }
    }
    try {
      this.db.page(e);
    } catch (refused) {
      if (refused instanceof DdbstError) {
        refused.cause = e;
        return refused;
      }
      throw refused;
    }
    return e;
  }

  async _write(op, entity, values, options) {
    const req = { op, entity, values, ...options };
    const built = this.db.call(req);
    if (built.item) {
      // explain() needs the values as built (generated ids, the clock)
      req.values = built.item;
      this.db.typed(entity, built.item);
    }
    await this.send(built, req);
    return built;
  }

  // ---- the table ----
  async createTable({ wait = true } = {}) {
    const request = this.db.createTable();
    await this.send(request);
    if (wait) {
      const { waitUntilTableExists } = commands();
      await waitUntilTableExists({ client: this.client, maxWaitTime: 60, minDelay: 1 },
                                 { TableName: request.body.TableName });
    }
  }
  // Refused by DynamoDB while the table's deletion protection is on.
  async deleteTable() {
    await this.send(this.db.deleteTable());
  }
  // The SDK's Table of DescribeTable.
  async describeTable() {
    return (await this.send(this.db.describeTable())).Table;
  }
  async _waitIndex(index, gone) {
    for (let i = 0; i < 600; i++) {
      const ixs = (await this.describeTable()).GlobalSecondaryIndexes || [];
      const ix = ixs.find((x) => x.IndexName === index);
      if (gone ? !ix : ix && ix.IndexStatus === 'ACTIVE') return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`index ${index} never became ${gone ? 'gone' : 'ACTIVE'}`);
  }
  // UpdateTable creating the model's global index (DynamoDB backfills it).
  async addIndex(index, { wait = true } = {}) {
    await this.send(this.db.updateTable({ addIndex: index }));
    if (wait) await this._waitIndex(index, false);
  }
  // UpdateTable deleting an index the model no longer declares.
  async removeIndex(index, { wait = true } = {}) {
    await this.send(this.db.updateTable({ removeIndex: index }));
    if (wait) await this._waitIndex(index, true);
  }

  // ---- items ----
  // The item (its values typed by the model), or null.
  async get(entity, values, options = {}) {
    const out = await this.send(this.db.get(entity, values, options));
    const page = this.db.page(out, { operation: 'GetItem' });
    return page.items.length && page.items[0] ? page.items[0].item : null;
  }
  // The values written (defaults, generated ids and timestamps filled).
  async put(entity, values, options = {}) {
    return (await this._write('put', entity, values, options)).item;
  }
  async create(entity, values, options = {}) {
    return (await this._write('create', entity, values, options)).item;
  }
  // options: set, remove, add, append, previous, expectVersion, upsert, now
  async update(entity, values, options = {}) {
    await this._write('update', entity, values, options);
  }
  async delete(entity, values, options = {}) {
    await this._write('delete', entity, values, options);
  }

  // ---- reads of many ----
  // One page: {items: [{entity, item}], count, hasMore, cursor?}; pass its
  // cursor back (options.cursor) for the next page.
  async query(pattern, values, options = {}) {
    const out = await this.send(this.db.query(pattern, values, options));
    return this.db.page(out, { pattern, values, now: options.now });
  }
  // Every item of the pattern, page after page.
  async *queryAll(pattern, values, options = {}) {
    let cursor;
    for (;;) {
      const page = await this.query(pattern, values, { ...options, cursor });
      for (const entry of page.items) if (entry) yield entry;
      if (!page.hasMore || !page.cursor) return;
      cursor = page.cursor;
    }
  }

  // One page of a Scan (db.scan's options, docs/scans.md): {items, count,
  // hasMore, cursor?}; pass its cursor back (options.cursor) for the next
  // page of the same scan (segment).
  async scan(options = {}) {
    const { limit, cursor, consistent, select, ...fields } = options;
    const out = await this.send(this.db.scan({ ...fields, limit, cursor, consistent, select }));
    return this.db.scanPage(out, { ...fields, now: options.now });
  }
  // Every item of a scan (or of one segment of it), page after page.
  async *scanAll(options = {}) {
    let cursor;
    for (;;) {
      const page = await this.scan({ ...options, cursor });
      for (const entry of page.items) if (entry) yield entry;
      if (!page.hasMore || !page.cursor) return;
      cursor = page.cursor;
    }
  }
  // The unique guards of the table whose holder is gone or holds another
  // value: {guards, orphans}, a scan page at a time, each page's holders
  // read back.
  async orphanGuards({ limit } = {}) {
    let guards = 0;
    const orphans = [];
    let cursor;
    for (;;) {
      const out = await this.send(this.db.scan({ limit, cursor }));
      const page = this.db.scanPage(out);
      const holders = [];
      let audit;
      for (;;) {
        audit = this.db.guards([out], holders);
        if (!audit.request) break;
        holders.push(await this.send(audit.request));
      }
      guards += audit.guards;
      orphans.push(...audit.orphans);
      if (!page.hasMore || !page.cursor) return { guards, orphans };
      cursor = page.cursor;
    }
  }

  async _untilProcessed(request, operation) {
    const items = [];
    let pending = request;
    for (let attempt = 0; pending; attempt++) {
      if (attempt > this.unprocessedAttempts) {
        throw new DdbstError({ code: -12, name: 'EDYNAMODB', path: '',
          message: `${operation}: items still unprocessed after ${this.unprocessedAttempts} retries` });
      }
      if (attempt) await sleep(Math.min(50 * 2 ** attempt, 2000));
      const page = this.db.page(await this.send(pending), { operation });
      items.push(...page.items);
      pending = page.followup;
    }
    return items;
  }
  // The full items of a page of a KEYS_ONLY or INCLUDE index, from the
  // Query's answer (the SDK's output or its text): each BatchGetItem sent,
  // unprocessed keys again until none are left, the answers read back:
  // {items (the page's order; null: deleted since), missing, pending, requests}.
  async hydrate(response, options = {}) {
    const { attributes, consistent } = options;
    const plan = this.db.hydrate(response, { attributes, consistent });
    const answers = [];
    for (const [chunk, request] of plan.requests.entries()) {
      let pending = request;
      for (let attempt = 0; pending; attempt++) {
        if (attempt > this.unprocessedAttempts) {
          throw new DdbstError({ code: -12, name: 'EDYNAMODB', path: '',
            message: `BatchGetItem: keys still unprocessed after ${this.unprocessedAttempts} retries` });
        }
        if (attempt) await sleep(Math.min(50 * 2 ** attempt, 2000));
        const out = await this.send(pending);
        answers.push({ chunk, response: out });
        pending = this.db.page(out, { operation: 'BatchGetItem' }).followup;
      }
    }
    return this.db.hydrate(response, { attributes, consistent, answers });
  }
  // One page of a pattern on a KEYS_ONLY or INCLUDE index with its full
  // items, in the index's order (options.consistent: read them with
  // ConsistentRead; options.attributes: only these); an item deleted since
  // the query is null, and missing lists them.
  async queryFull(pattern, values, options = {}) {
    const { attributes, consistent, ...query } = options;
    const out = await this.send(this.db.query(pattern, values, query));
    const page = this.db.page(out, { pattern, values, now: query.now });
    const full = await this.hydrate(out, { attributes, consistent });
    return { ...page, items: full.items, missing: full.missing };
  }
  // items: [{op: 'get', entity, values}]; the items found, in DynamoDB's order.
  async batchGet(items, options = {}) {
    const out = [];
    for (const request of this.db.batchGet(items, options).requests) {
      out.push(...(await this._untilProcessed(request, 'BatchGetItem')).filter(Boolean));
    }
    return out;
  }
  // items: puts and deletes, 25 a request, unprocessed ones again.
  async batchWrite(items, options = {}) {
    for (const request of this.db.batchWrite(items, options).requests) {
      await this._untilProcessed(request, 'BatchWriteItem');
    }
  }
  // One TransactWriteItems; a cancellation is explained per item.
  async transactWrite(items, options = {}) {
    const req = { op: 'transact', items, ...options };
    await this.send(this.db.call(req), req);
  }
  // One TransactGetItems: an entry per get, null where none was found.
  async transactGet(items) {
    const out = await this.send(this.db.transact(items));
    return this.db.page(out, { operation: 'TransactGetItems' }).items;
  }
}

module.exports = { Table, send, command, bodyToSdk };
