'use strict';
// ddbst for Node.js: one request object in, one answer object out, through
// libddbst's JSON entry (include/ddbst.h). A failure is thrown as a
// DdbstError (a DynamoDBError when the answer carries DynamoDB's error).

const { bind, take, attributeTypes } = require('./native.cjs');
const json = require('./json.cjs');
const { Prepared, release } = require('./prepared.cjs');

// A failure reported by ddbst: `code` is the C code (-5), `codeName` its
// name ("EVALUE"), `path` what was wrong ("facet orgId", "cursor",
// "values.orgId", "items[2].entity"), `message` the library's words.
class DdbstError extends Error {
  constructor(error, answer) {
    super(error.message);
    this.name = 'DdbstError';
    this.code = error.code;
    this.codeName = error.name;
    this.path = error.path;
    for (const k of ['offset', 'line', 'column']) {
      if (error[k] !== undefined) this[k] = error[k];
    }
    if (answer && answer.errors) this.errors = answer.errors; // a bad model: all of them
  }
}

// DynamoDB refused a request: `dynamodb` holds its type, kind, message,
// retryable and cancellation reasons. A refused write sent through
// ddbst/aws-sdk also has `explanation` (in the model's words), `reason`
// ("unique", "exists", "version", "missing", ...) and `failures`; the SDK's
// exception is `cause`.
class DynamoDBError extends DdbstError {
  constructor(error, answer, options) {
    super(error, answer);
    this.name = 'DynamoDBError';
    this.dynamodb = answer.dynamodb;
    this.kind = answer.dynamodb.kind;
    this.retryable = Boolean(answer.dynamodb.retryable);
    // why DynamoDB throttled, and where: [{ reason, resource }]
    this.throttlingReasons = answer.dynamodb.throttlingReasons || [];
    if (options && options.cause !== undefined) this.cause = options.cause;
  }
}

function thrown(answer) {
  return answer.dynamodb ? new DynamoDBError(answer.error, answer)
                         : new DdbstError(answer.error, answer);
}

// A session's prepared operations are freed before it (their items point
// into its model), whichever finalizer runs first.
const unclosed = new FinalizationRegistry(({ b, handle, live }) => {
  for (const h of [...live]) release(b, h, live);
  b.close(handle);
});

// The C codes' names, for errors read from a ddbst_error (prepared.cjs).
const CODE_NAMES = {
  '-1': 'EINVAL', '-2': 'ENOMEM', '-3': 'ESYNTAX', '-4': 'EMODEL', '-5': 'EVALUE', '-6': 'EMISSING',
  '-7': 'ENOTFOUND', '-8': 'ERANGE', '-9': 'EIO', '-10': 'ENOSPC', '-11': 'ECURSOR', '-12': 'EDYNAMODB',
};
const typedError = (e) => new DdbstError({ ...e, name: CODE_NAMES[e.code] || 'EUNKNOWN' });

// ---- values, typed by the model ----

const NUMBER_MODES = new Set(['number', 'string', 'bigint']);

const numberText = (x) => (typeof x === 'string' ? new json.NumberText(x) : x);

function toBytes(v) {
  return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
}

function converters(types) {
  const out = {};
  for (const [entity, attrs] of Object.entries(types)) {
    const c = {};
    for (const [name, type] of Object.entries(attrs)) {
      if (type === 'binary') c[name] = toBytes;
      else if (type === 'string_set' || type === 'number_set') c[name] = (v) => (Array.isArray(v) ? new Set(v) : v);
    }
    out[entity] = c;
  }
  return out;
}

// DynamoDB's answer (or an event) as text: objects are written with binary
// (Uint8Array, as the SDK returns it) in base64, as DynamoDB itself writes it.
function responseText(x) {
  if (typeof x === 'string') return x;
  if (isSdkError(x)) return sdkErrorBody(x);
  if (x instanceof Uint8Array) return Buffer.from(x).toString('utf8');
  if (x && typeof x === 'object' && '$metadata' in x) {
    const { $metadata, ...rest } = x; // eslint-disable-line no-unused-vars
    return json.stringify(rest);
  }
  return json.stringify(x);
}

class Ddbst {
  // options: modelFile (a path) or model (the model's JSON text, or an
  // object); table (overrides table.name); cursorKeys ("hex64,hex64", newest
  // first); cursorMaxAge (seconds); numbers ('number', the default, refuses
  // a number a double cannot hold exactly; 'string' or 'bigint' read every
  // number exactly); library (the path of libddbst, else $DDBST_LIBRARY,
  // else the one this package carries).
  constructor(options = {}) {
    const { library, numbers = 'number', ...config } = options;
    if (!NUMBER_MODES.has(numbers)) throw new TypeError(`numbers: '${numbers}' is none of 'number', 'string', 'bigint'`);
    if (config.model !== undefined && typeof config.model !== 'string') {
      config.model = JSON.stringify(config.model);
    }
    this.numbers = numbers;
    this._b = bind(library);
    const body = Buffer.from(json.stringify(config), 'utf8');
    const error = [null];
    const handle = this._b.open(body, body.length, null, error);
    if (!handle) {
      const e = error[0] ? JSON.parse(take(this._b, error[0])) : null;
      throw e ? thrown(e) : new Error('ddbst_json_open failed and said nothing');
    }
    this._handle = handle;
    this._token = {};
    this._live = new Set(); // prepared handles not yet freed
    unclosed.register(this, { b: this._b, handle, live: this._live }, this._token);
    // each entity's attributes and their types ("binary", "number", ...)
    this.types = attributeTypes(this._b, config.modelFile, config.model);
    this._convert = converters(this.types);
    // number sets take numbers only: a string element is a number's text
    this._numberSets = {};
    for (const [entity, attrs] of Object.entries(this.types)) {
      const names = Object.keys(attrs).filter((a) => attrs[a] === 'number_set');
      if (names.length) this._numberSets[entity] = names;
    }
  }

  _prepare(request) {
    const names = this._numberSets[request.entity];
    if (names) {
      for (const member of ['values', 'set', 'add', 'previous']) {
        const values = request[member];
        if (!values || typeof values !== 'object') continue;
        for (const a of names) {
          const v = values[a];
          if (v instanceof Set || Array.isArray(v)) {
            request = { ...request, [member]: { ...values, [a]: [...v].map(numberText) } };
          }
        }
      }
    }
    if (Array.isArray(request.items)) request = { ...request, items: request.items.map((x) => this._prepare(x)) };
    return request;
  }

  // One operation prepared for calls without JSON (lib/prepared.cjs):
  // op 'get', 'put', 'create', 'update', 'delete' (name: an entity) or
  // 'query' (name: a pattern); options fixed for every call: consistent
  // (get, query), select (query), ifExists (delete), upsert (update),
  // return and returnOnFailure (put, create, update, delete). Its
  // text(values, {limit, cursor, now}) is the request body's JSON text (an
  // update's options: now, remove, add, append, expectVersion).
  prepare(op, name, options = {}) {
    return new Prepared(this, op, name, options, typedError);
  }

  // Frees the session (its model, its keys wiped) and its prepared
  // operations. Calls after it throw.
  close() {
    if (!this._handle) return;
    unclosed.unregister(this._token);
    for (const h of [...this._live]) release(this._b, h, this._live);
    this._b.close(this._handle);
    this._handle = null;
  }

  // The answer's JSON text to one request, error answers included.
  callText(request) {
    if (!this._handle) throw new Error('ddbst: this session is closed');
    const len = [0];
    const ptr = this._b.callString(this._handle, json.stringify(this._prepare(request)), -1, len);
    return take(this._b, ptr, len[0]);
  }

  // Runs one request ({op: "query", pattern: ..., ...}) and returns its
  // answer, or throws DdbstError / DynamoDBError. Items are not typed by
  // the model (the methods below do that); numbers in them follow
  // `numbers`.
  call(request) {
    const answer = json.parse(this.callText(request), this.numbers);
    if (answer.error) throw thrown(answer);
    return answer;
  }

  // An item of `entity`, in place: binary as Uint8Array, sets as Set.
  typed(entity, item) {
    const c = entity && this._convert[entity];
    if (c && item && typeof item === 'object') {
      for (const name of Object.keys(c)) {
        if (name in item) item[name] = c[name](item[name]);
      }
    }
    return item;
  }

  _written(answer, entity) {
    if (answer.item) this.typed(entity, answer.item);
    return answer;
  }

  // ---- the model ----
  check() { return this.call({ op: 'check' }); }
  version() { return this.call({ op: 'version' }).version; }
  patterns() { return this.call({ op: 'patterns' }).patterns; }
  createTable() { return this.call({ op: 'createTable' }); }
  describeTable() { return this.call({ op: 'describeTable' }); }
  deleteTable() { return this.call({ op: 'deleteTable' }); }
  // { addIndex: name } or { removeIndex: name }, one of the two
  updateTable(options = {}) {
    const { addIndex, removeIndex } = options;
    return this.call({ op: 'updateTable', addIndex, removeIndex });
  }
  updateContinuousBackups() { return this.call({ op: 'updateContinuousBackups' }); }
  updateContributorInsights(index) {
    return this.call({ op: 'updateContributorInsights', index });
  }
  // expiry on the model's ttlAttribute, or off on `disable`, which it no longer declares
  updateTimeToLive(disable) { return this.call({ op: 'updateTimeToLive', disable }); }
  cloudformation(streamFilters) {
    return this.call({ op: 'cloudformation', streamFilters }).template;
  }
  lint() { return this.call({ op: 'lint' }); }
  doc() { return this.call({ op: 'doc' }).markdown; }

  // ---- keys and items ----
  keys(entity, values, options = {}) {
    return this._written(this.call({ op: 'keys', entity, values, ...options }), entity);
  }
  itemSize(entity, values, options = {}) {
    return this.call({ op: 'itemSize', entity, values, ...options });
  }
  parse(pk, sk, options = {}) {
    const answer = this.call({ op: 'parse', pk, sk, ...options });
    this.typed(answer.entity, answer.values);
    return answer;
  }

  // ---- requests: {operation, target, body} (put and create: and item) ----
  get(entity, values, options = {}) {
    return this.call({ op: 'get', entity, values, ...options });
  }
  put(entity, values, options = {}) {
    return this._written(this.call({ op: 'put', entity, values, ...options }), entity);
  }
  create(entity, values, options = {}) {
    return this._written(this.call({ op: 'create', entity, values, ...options }), entity);
  }
  // options: set, remove, add, append, previous, expectVersion, upsert, now
  update(entity, values, options = {}) {
    return this.call({ op: 'update', entity, values, ...options });
  }
  delete(entity, values, options = {}) {
    return this.call({ op: 'delete', entity, values, ...options });
  }
  // options: condition, limit, cursor, consistent, project, now
  query(pattern, values, options = {}) {
    return this.call({ op: 'query', pattern, values, ...options });
  }
  batchGet(items, options = {}) {
    return this.call({ op: 'batchGet', items, ...options });
  }
  batchWrite(items, options = {}) {
    return this.call({ op: 'batchWrite', items, ...options });
  }
  transact(items, options = {}) {
    return this.call({ op: 'transact', items, ...options });
  }

  // ---- scans (docs/scans.md) ----
  // A Scan of the table or options.index: every item, or those of
  // options.entities, or those of one entity its options.filter (and
  // params) holds for; options.segment of options.totalSegments for a
  // parallel scan; project, limit, consistent, select, cursor (the page
  // before's), now.
  scan(options = {}) {
    return this.call({ op: 'scan', ...options });
  }
  // A Scan's answer (text, the SDK's output, or its exception), given the
  // scan's own options (the cursor is bound to them): {items, count,
  // hasMore, cursor?}. Items of no entity of the model (guards, foreign
  // items) come as {entity: null, item: {every attribute as stored}}.
  scanPage(response, options = {}) {
    const answer = this.call({ op: 'scanPage', response: responseText(response), ...options });
    for (const entry of answer.items) {
      if (entry && entry.entity !== null) this.typed(entry.entity, entry.item);
    }
    return answer;
  }
  // The orphan-guard audit of Scan answers `pages`, given the answers to
  // the requests it gave so far (`holders`, in order): {request} to send
  // next, or {guards, orphans: [{kind, entity, unique, guard, holder}]}.
  guards(pages, holders = []) {
    return this.call({
      op: 'guards',
      pages: pages.map(responseText),
      holders: holders.length ? holders.map(responseText) : undefined,
    });
  }

  // ---- answers ----
  // response: DynamoDB's answer: its text, or an object (the SDK's output,
  // binary as Uint8Array, included), or the SDK's exception. options: operation (default "Query"),
  // pattern and values (for the next page's cursor), now.
  page(response, options = {}) {
    const answer = this.call({ op: 'page', response: responseText(response), ...options });
    for (const entry of answer.items) {
      if (entry) this.typed(entry.entity, entry.item);
    }
    return answer;
  }
  // A Query answer of a KEYS_ONLY or INCLUDE index (text or the SDK's
  // output) into {requests}: the BatchGetItem of its full items, 100 keys
  // each. options: attributes (only these, with the keys), consistent, and
  // answers: [{chunk, response}] — every answer to request `chunk` and to
  // its follow-ups — which add items (in the page's order; null: not there
  // any more), missing and pending (item indices).
  hydrate(response, options = {}) {
    const { answers, ...rest } = options;
    const request = { op: 'hydrate', response: responseText(response), ...rest };
    if (answers) {
      request.answers = answers.map((a) => ({ chunk: a.chunk, response: responseText(a.response) }));
    }
    const answer = this.call(request);
    for (const entry of answer.items || []) {
      if (entry) this.typed(entry.entity, entry.item);
    }
    return answer;
  }
  // An error answer (text, object, or the SDK's exception) and the request
  // that drew it: {dynamodb, kind, explanation, failures?}.
  explain(response, request) {
    return this.call({ op: 'explain', response: responseText(response), request });
  }
  // A stream event (Lambda's {"Records": [...]}); failed: record indices
  // to report as batchItemFailures.
  stream(event, failed) {
    const answer = this.call({ op: 'stream', event: responseText(event), failed });
    for (const r of answer.records) {
      if (r.new) this.typed(r.entity, r.new);
      if (r.old) this.typed(r.entity, r.old);
    }
    return answer;
  }
}

// An SDK exception (a ServiceException of @aws-sdk/client-dynamodb: its
// name, message and modelled members) as DynamoDB's error body.
function sdkErrorBody(e) {
  const body = { __type: e.name, message: e.message };
  for (const k of ['CancellationReasons', 'Item']) {
    if (e[k] !== undefined) body[k] = e[k];
  }
  return json.stringify(body);
}

function isSdkError(e) {
  return e instanceof Error && e.$metadata !== undefined && typeof e.name === 'string';
}

module.exports = { Ddbst, DdbstError, DynamoDBError, NumberText: json.NumberText, isSdkError, sdkErrorBody, responseText };
