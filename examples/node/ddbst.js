'use strict';
// ddbst for Node.js: the JSON entry of libddbst (ddbst_json_*, see the end of
// include/ddbst.h) through koffi. One request object in, one answer object
// out; a failure is thrown as a DdbstError (a DynamoDBError when the answer
// carries what DynamoDB said).
//
//   const { Ddbst } = require('./ddbst.js');
//   const db = new Ddbst({ modelFile: 'examples/saas/model.json' });
//   db.keys('User', { orgId: 'acme', userId: 'u1', email: 'ann@acme.example' });
//   db.close();

const path = require('node:path');

// koffi from the usual places, else from tests/node_modules, where
// tests/package-lock.json pins it for this repository.
const koffi = require(require.resolve('koffi', {
  paths: [__dirname, path.join(__dirname, '..', '..', 'tests')],
}));

// Both opaque pointers (BigInt in koffi 3), never decoded by koffi itself:
// an answer must keep its pointer until ddbst_json_free, which a 'char *'
// return would lose. Named once: koffi refuses a type name twice.
koffi.pointer('ddbst_json', koffi.opaque());
koffi.pointer('ddbst_json_answer', koffi.opaque());

// One binding per library file: koffi.load and the declarations are done
// once, however many sessions are opened.
const bindings = new Map();

function bind(library) {
  let b = bindings.get(library);
  if (b) return b;
  let lib;
  try {
    lib = koffi.load(library);
  } catch (e) {
    throw new Error(`ddbst: cannot load ${library} (set DDBST_LIBRARY or the library option): ${e.message}`);
  }
  b = {
    open: lib.func('ddbst_json *ddbst_json_open(const uint8_t *config, size_t len, ' +
                   'const void *alloc, _Out_ ddbst_json_answer **error)'),
    call: lib.func('ddbst_json_answer *ddbst_json_call(const ddbst_json *session, ' +
                   'const uint8_t *request, size_t len, _Out_ size_t *answer_len)'),
    close: lib.func('void ddbst_json_close(ddbst_json *session)'),
    free: lib.func('void ddbst_json_free(ddbst_json_answer *answer)'),
  };
  bindings.set(library, b);
  return b;
}

// A failure reported by ddbst: `code` is the C code (-5), `codeName` its
// name ("EVALUE"), `path` what was wrong ("facet orgId", "cursor",
// "values.orgId", "items[2].entity"), `message` the library's words exactly.
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

// DynamoDB's error answer, read by `page`: `dynamodb` holds its type, kind,
// message, retryable and cancellation reasons.
class DynamoDBError extends DdbstError {
  constructor(error, answer) {
    super(error, answer);
    this.name = 'DynamoDBError';
    this.dynamodb = answer.dynamodb;
  }
}

function thrown(answer) {
  return answer.dynamodb ? new DynamoDBError(answer.error, answer)
                         : new DdbstError(answer.error, answer);
}

// The answer's text, read with its length, then freed whatever happens.
function take(b, ptr, len) {
  try {
    return len === undefined ? koffi.decode.string(ptr) : koffi.decode.string(ptr, Number(len));
  } finally {
    b.free(ptr);
  }
}

// Sessions nobody closed are closed when collected (close() is better: it is
// deterministic, and frees the cursor keys at once).
const unclosed = new FinalizationRegistry(({ b, handle }) => b.close(handle));

// What DynamoDB answered, or an event: objects are sent as JSON text.
const text = (x) => (typeof x === 'string' ? x : JSON.stringify(x));

class Ddbst {
  // options: modelFile (a path) or model (the model's JSON text, or an
  // object); table (overrides table.name); cursorKeys ("hex64,hex64", newest
  // first); cursorMaxAge (seconds); library (the path of libddbst.so, else
  // $DDBST_LIBRARY, else "libddbst.so" from the loader's path).
  constructor(options = {}) {
    const { library = process.env.DDBST_LIBRARY || 'libddbst.so', ...config } = options;
    if (config.model !== undefined && typeof config.model !== 'string') {
      config.model = JSON.stringify(config.model);
    }
    this._b = bind(library);
    const body = Buffer.from(JSON.stringify(config), 'utf8');
    const error = [null];
    const handle = this._b.open(body, body.length, null, error);
    if (!handle) {
      const e = error[0] ? JSON.parse(take(this._b, error[0])) : null;
      throw e ? thrown(e) : new Error('ddbst_json_open failed and said nothing');
    }
    this._handle = handle;
    this._token = {};
    unclosed.register(this, { b: this._b, handle }, this._token);
  }

  // Frees the session (its model, its keys wiped). Calls after it throw.
  close() {
    if (!this._handle) return;
    unclosed.unregister(this._token);
    this._b.close(this._handle);
    this._handle = null;
  }

  // Runs one request ({op: "query", pattern: ..., ...}) and returns its
  // answer, or throws DdbstError / DynamoDBError.
  call(request) {
    if (!this._handle) throw new Error('ddbst: this session is closed');
    const body = Buffer.from(JSON.stringify(request), 'utf8');
    const len = [0];
    const ptr = this._b.call(this._handle, body, body.length, len);
    const answer = JSON.parse(take(this._b, ptr, len[0]));
    if (answer.error) throw thrown(answer);
    return answer;
  }

  // ---- the model ----
  check() { return this.call({ op: 'check' }); }
  version() { return this.call({ op: 'version' }).version; }
  patterns() { return this.call({ op: 'patterns' }).patterns; }
  createTable() { return this.call({ op: 'createTable' }); }
  cloudformation(streamFilters) {
    return this.call({ op: 'cloudformation', streamFilters }).template;
  }
  lint() { return this.call({ op: 'lint' }); }
  doc() { return this.call({ op: 'doc' }).markdown; }

  // ---- keys and items ----
  keys(entity, values, options = {}) {
    return this.call({ op: 'keys', entity, values, ...options });
  }
  itemSize(entity, values, options = {}) {
    return this.call({ op: 'itemSize', entity, values, ...options });
  }
  parse(pk, sk, options = {}) {
    return this.call({ op: 'parse', pk, sk, ...options });
  }

  // ---- requests: {operation, target, body} (put and create: and item) ----
  get(entity, values, options = {}) {
    return this.call({ op: 'get', entity, values, ...options });
  }
  put(entity, values, options = {}) {
    return this.call({ op: 'put', entity, values, ...options });
  }
  create(entity, values, options = {}) {
    return this.call({ op: 'create', entity, values, ...options });
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
  // items: [{op: "get", entity, values}, ...]: {requests: [...]}
  batchGet(items, options = {}) {
    return this.call({ op: 'batchGet', items, ...options });
  }
  batchWrite(items, options = {}) {
    return this.call({ op: 'batchWrite', items, ...options });
  }
  transact(items, options = {}) {
    return this.call({ op: 'transact', items, ...options });
  }

  // ---- answers ----
  // response: DynamoDB's answer (text or object); options: operation
  // (default "Query"), pattern and values (for the next page's cursor), now.
  page(response, options = {}) {
    return this.call({ op: 'page', response: text(response), ...options });
  }
  // An error answer and the request that drew it: {dynamodb, kind, explanation}.
  explain(response, request) {
    return this.call({ op: 'explain', response: text(response), request });
  }
  // A stream event (Lambda's {"Records": [...]}); failed: record indices
  // to report as batchItemFailures.
  stream(event, failed) {
    return this.call({ op: 'stream', event: text(event), failed });
  }
}

module.exports = { Ddbst, DdbstError, DynamoDBError };
