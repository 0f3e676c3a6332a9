'use strict';
// Prepared operations: one operation of a session (a put of Project, a
// query of listProjects) resolved once, its values passed to C as one
// string of NUL-ended segments by attribute index and its body handed back
// as text — no JSON written or parsed in JavaScript on the way
// (ddbst_prepared_* in include/ddbst.h; why: docs/performance.md, "Item 4,
// second pass"). Values the fast path does not take (lists, maps, sets, a
// number for a string, an unknown attribute) and every failure go through
// the JSON entry, so that errors are the ones db.put and db.query throw.
// An update's segments carry a mark each (docs/ffi.md, "A prepared
// update"): '=' SET, '-' REMOVE, '+' ADD, '?' the version expected.

const { readError, ORDER, ERROR_SIZE } = require('./native.cjs');
const json = require('./json.cjs');

// op -> [DDBST_OP_*, the flags the op itself implies]
const OPS = { get: [1, 0], put: [2, 0], create: [2, 0x2], update: [3, 0], delete: [4, 0], query: [5, 0] };
// the operations a prepared run answers with
const NAMES = { 1: 'GetItem', 2: 'PutItem', 3: 'UpdateItem', 4: 'DeleteItem', 5: 'Query', 8: 'TransactWriteItems' };
// the options each op takes when prepared, and per call
const FIXED = {
  get: ['consistent'], put: ['return', 'returnOnFailure'], create: ['return', 'returnOnFailure'],
  update: ['upsert', 'return', 'returnOnFailure'], delete: ['ifExists', 'return', 'returnOnFailure'],
  query: ['consistent', 'select'],
};
const PER_CALL = {
  query: new Set(['limit', 'cursor', 'now']), put: new Set(['now']), create: new Set(['now']),
  update: new Set(['now', 'remove', 'add', 'append', 'expectVersion']),
};
// ReturnValues as the flags spell them; a put, create and delete take ALL_OLD only
const RETURNS = { NONE: 0, ALL_OLD: 0x100, UPDATED_OLD: 0x200, ALL_NEW: 0x300, UPDATED_NEW: 0x400 };
const NONE = new Set();
const EMPTY = {};

const NUMERIC = new Set(['integer', 'number', 'ttl']);

// Lone surrogates become U+FFFD on their way to UTF-8: such text takes
// the JSON entry, which refuses it by name.
const wellFormed = typeof ''.isWellFormed === 'function'
  ? (s) => s.isWellFormed()
  : (s) => !/[\uD800-\uDFFF]/.test(s);

function flagsOf(op, o) {
  let f = OPS[op][1];
  if (o.consistent) f |= 0x1;
  if (o.ifExists) f |= 0x8;
  if (o.upsert) f |= 0x4;
  if (o.return !== undefined) {
    const r = Object.prototype.hasOwnProperty.call(RETURNS, o.return) ? RETURNS[o.return] : -1;
    if (op === 'update' ? r < 0 : r !== 0 && r !== 0x100) {
      throw new TypeError(`return: a prepared ${op} takes ` +
                          `${op === 'update' ? Object.keys(RETURNS).map((x) => `'${x}'`).join(', ') : "'NONE' or 'ALL_OLD'"}, ` +
                          `not ${JSON.stringify(o.return)}`);
    }
    f |= r;
  }
  if (o.returnOnFailure) f |= 0x800;
  if (o.select === 'COUNT') f |= 0x1000;
  else if (o.select !== undefined && o.select !== 'ALL') {
    throw new TypeError(`select: expected 'COUNT' or 'ALL', not ${JSON.stringify(o.select)}`);
  }
  return f;
}

// Frees a prepared handle once: by its own finalizer, by close(), or by its
// session's close (which frees every one it still has, before itself).
function release(b, handle, live) {
  if (live.delete(handle)) b.preparedFree(handle);
}
const unfreed = new FinalizationRegistry(({ b, handle, live }) => release(b, handle, live));

class Prepared {
  constructor(db, op, name, options, thrown) {
    if (!OPS[op]) throw new TypeError(`a prepared operation is get, put, create, update, delete or query, not ${op}`);
    if (!db._handle) throw new Error('ddbst: this session is closed');
    const fixed = {};
    for (const k of Object.keys(options)) {
      if (!FIXED[op].includes(k)) {
        throw new TypeError(`a prepared ${op} takes ${FIXED[op].join(', ')} when prepared ` +
                            `(and ${[...(PER_CALL[op] || NONE)].join(', ') || 'nothing'} per call), not ${k}`);
      }
      if (options[k] !== undefined) fixed[k] = options[k];
    }
    const b = db._b;
    const err = Buffer.alloc(ERROR_SIZE);
    const handle = b.preparedNew(db._handle, OPS[op][0], name, flagsOf(op, fixed), err);
    if (!handle) throw thrown(readError(err));
    db._live.add(handle);
    this._b = b;
    this._h = handle;
    this._live = db._live;
    this._token = {};
    unfreed.register(this, { b, handle, live: db._live }, this._token);
    this.db = db;
    this.op = op;
    this.name = name;
    this._thrown = thrown;
    this._fixed = fixed;
    this._perCall = PER_CALL[op] || NONE;
    // the operation of the last body: a put of an entity with unique
    // attributes is a TransactWriteItems
    this.operation = NAMES[OPS[op][0]];
    const entity = db.types[ORDER][b.preparedEntity(handle)];
    this.entity = entity.name;
    const attrs = entity.attributes;
    this._index = new Map(attrs.map(([n], i) => [n, i]));
    this._numeric = attrs.map(([, t]) => NUMERIC.has(t));
    this._boolean = attrs.map(([, t]) => t === 'boolean');
    this._stringSet = attrs.map(([, t]) => t === 'string_set');
    // where an update's '?' goes (-1: the entity has no version)
    this._version = b.preparedVersionAttribute(handle);
    this._segs = attrs.map(() => undefined);
  }

  // Frees it (the session's close does too). Calls after it throw.
  close() {
    if (!this._h) return;
    unfreed.unregister(this._token);
    release(this._b, this._h, this._live);
    this._h = null;
  }

  // The values (and an update's remove, add and expectVersion) as
  // segments, or null when one needs the JSON entry.
  _pack(values, o) {
    const segs = this._segs;
    const n = segs.length;
    for (let i = 0; i < n; i++) segs[i] = undefined;
    if (values !== undefined && values !== null) {
      if (typeof values !== 'object') return null;
      for (const name in values) {
        if (!Object.prototype.hasOwnProperty.call(values, name)) continue;
        const v = values[name];
        if (v === undefined || v === null) continue;
        const i = this._index.get(name);
        if (i === undefined) return null;
        const s = typeof v === 'string' ? v : this._text(v, i);
        if (s === null || s.indexOf('\0') !== -1 || !wellFormed(s)) return null;
        segs[i] = `=${s}`;
      }
    }
    if (this.op === 'update' && !this._marks(o)) return null;
    let out = '';
    for (let i = 0; i < n; i++) out += segs[i] === undefined ? '\0' : `${segs[i]}\0`;
    return out;
  }

  // An update's remove, add and expectVersion as marks on the segments;
  // false when the JSON entry must take them (an append, a set of numbers,
  // an attribute given twice, anything it would refuse).
  _marks(o) {
    const segs = this._segs;
    const { remove, add, append, expectVersion } = o;
    if (append !== undefined && append !== null) return false;
    const mark = (name, text) => {
      const i = this._index.get(name);
      if (i === undefined || segs[i] !== undefined) return false;
      segs[i] = text;
      return true;
    };
    if (remove !== undefined && remove !== null) {
      if (!Array.isArray(remove)) return false;
      for (const name of remove) {
        if (typeof name !== 'string' || !mark(name, '-')) return false;
      }
    }
    if (add !== undefined && add !== null) {
      if (typeof add !== 'object') return false;
      for (const name in add) {
        if (!Object.prototype.hasOwnProperty.call(add, name)) continue;
        const i = this._index.get(name);
        if (i === undefined) return false;
        const s = this._delta(add[name], i);
        if (s === null || !mark(name, `+${s}`)) return false;
      }
    }
    if (expectVersion !== undefined && expectVersion !== null) {
      if (this._version < 0 || !Number.isSafeInteger(expectVersion) || expectVersion < 1 ||
          segs[this._version] !== undefined) return false;
      segs[this._version] = `?${expectVersion}`;
    }
    return true;
  }

  // An ADD's text: a number's delta, or a string set's elements as a JSON
  // array; null for what the JSON entry must take.
  _delta(v, i) {
    if (this._stringSet[i] && (Array.isArray(v) || v instanceof Set)) {
      const elements = [...v];
      for (const e of elements) {
        if (typeof e !== 'string' || e.indexOf('\0') !== -1 || !wellFormed(e)) return null;
      }
      return JSON.stringify(elements);
    }
    return typeof v === 'boolean' ? null : this._text(v, i);
  }

  // A value other than a string as the text ddbst_item_set reads, or null
  // when the JSON entry must take it (and answer for it).
  _text(v, i) {
    switch (typeof v) {
      case 'number': return this._numeric[i] && Number.isFinite(v) ? String(v) : null;
      case 'boolean': return this._boolean[i] ? (v ? 'true' : 'false') : null;
      case 'bigint': return this._numeric[i] ? String(v) : null;
      default:
        if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
        if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
        if (v instanceof json.NumberText && this._numeric[i]) return v.text;
        return null;
    }
  }

  // Whether the call's options are the fast path's: limit, cursor, now.
  _plain(o) {
    for (const k in o) {
      if (!this._perCall.has(k)) return false;
    }
    const { limit, cursor, now } = o;
    return (limit === undefined || (Number.isInteger(limit) && limit >= 1 && limit <= 0xffffffff)) &&
           (cursor === undefined || (typeof cursor === 'string' && cursor.indexOf('\0') === -1)) &&
           (now === undefined || (Number.isSafeInteger(now) && now >= 0));
  }

  // The request body's JSON text for `values` (options: a query's limit,
  // cursor and now; a put's now; an update's now, remove, add, append and
  // expectVersion), as DynamoDB takes it: send it with
  // ddbst/aws-sdk (`table.send(prepared.request(...))`) or your own HTTP.
  text(values, options) {
    const o = options || EMPTY;
    if (!this._h) throw new Error('ddbst: this prepared operation is closed');
    if (!this.db._handle) throw new Error('ddbst: this session is closed');
    const packed = this._pack(values, o);
    if (packed !== null && this._plain(o)) {
      const rc = this._b.preparedRun(this._h, packed, -1, o.limit || 0,
                                     o.cursor === undefined ? null : o.cursor, -1, o.now || 0, null);
      if (rc > 0) {
        this.operation = NAMES[rc];
        return this._b.preparedBody(this._h, null);
      }
    }
    return this._slow(values, o, packed);
  }

  // {operation, target, text}: what ddbst/aws-sdk's send takes.
  request(values, options) {
    const text = this.text(values, options);
    return { operation: this.operation, target: `DynamoDB_20120810.${this.operation}`, text };
  }

  // The same request through the JSON entry: its error, or its body.
  _slow(values, o, packed) {
    const request = { op: this.op, ...this._fixed, ...o, values };
    request[this.op === 'query' ? 'pattern' : 'entity'] = this.name;
    const answer = this.db.call(request); // throws what db.put / db.query throw
    if (packed !== null && this._plain(o)) {
      // the JSON entry built what the prepared run refused: say so rather
      // than send it
      const err = Buffer.alloc(ERROR_SIZE);
      this._b.preparedRun(this._h, packed, -1, o.limit || 0, o.cursor === undefined ? null : o.cursor,
                          -1, o.now || 0, err);
      throw this._thrown(readError(err));
    }
    this.operation = answer.operation;
    return json.stringify(answer.body);
  }
}

module.exports = { Prepared, release };
