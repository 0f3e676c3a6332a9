'use strict';
// JSON text to and from the JSON entry, exact: numbers past what a double
// holds are never rounded. Going in, bigint is written as its digits,
// Uint8Array (and Buffer) as standard base64, Set as an array, Date as its
// ISO-8601 UTC text. Coming out, numbers inside item values become what the
// session's `numbers` option asks for (see parse); every other number of an
// answer (count, bytes, code, ...) is a plain number.

// A number given as its text, written bare: for numbers past a double
// inside maps, lists and number sets, where a string would be a string.
class NumberText {
  constructor(text) {
    const t = String(text);
    if (!/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(t)) {
      throw new TypeError(`${JSON.stringify(t)} is not a number's text`);
    }
    this.text = t;
  }
  toString() { return this.text; }
}

// Bigints and NumberTexts are written as marked strings, then unquoted; a
// caller's string that looked like a mark would be counted twice, and is
// refused (it holds NUL, which no value may).
function stringify(value) {
  if (plain(value, 0)) return JSON.stringify(value);
  let marks = 0;
  const text = JSON.stringify(value, function replacer(key, v) {
    const raw = this[key];
    if (typeof raw === 'bigint' || raw instanceof NumberText) {
      marks++;
      return `${MARK}${typeof raw === 'bigint' ? raw : raw.text}`;
    }
    if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
    if (raw instanceof Set) return [...raw].sort(compare);
    if (raw instanceof Date) {
      if (Number.isNaN(raw.getTime())) throw new TypeError('an invalid Date is no timestamp');
      return raw.toISOString();
    }
    if (typeof raw === 'number' && !Number.isFinite(raw)) {
      throw new TypeError(`${raw} is not a number DynamoDB stores`);
    }
    return v;
  });
  if (!marks) return text;
  let found = 0;
  const out = text.replace(MARKED, (_, digits) => { found++; return digits; });
  if (found !== marks) throw new TypeError("a string holds ddbst's number mark (and NUL, which no value may)");
  return out;
}

// Whether `v` holds nothing the replacer changes, so that JSON.stringify
// alone writes the same text: a walk is cheaper than a replacer call per
// value (the common request: strings and small numbers). Deep (or
// circular) values take the replacer's path, which says what is wrong.
function plain(v, depth) {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || v === null) return typeof v !== 'bigint';
  if (depth > 32) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!plain(v[i], depth + 1)) return false;
    return true;
  }
  if (v instanceof Uint8Array || v instanceof Set || v instanceof Date || v instanceof NumberText) return false;
  for (const k of Object.keys(v)) if (!plain(v[k], depth + 1)) return false;
  return true;
}

// JSON.stringify calls toJSON before the replacer: Dates and Buffers have
// one, so the replacer reads `this[key]`, the value as it was.
const MARK = '\u0000\u0001ddbst-number:';
const MARKED = /"\\u0000\\u0001ddbst-number:(-?[0-9.eE+-]+)"/g;

function compare(a, b) {
  if (typeof a === typeof b && (typeof a === 'string' || typeof a === 'number' || typeof a === 'bigint')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return 0;
}

// The exact decimal value of a number's text, as digits and an exponent,
// so "1.50", "15E-1" and 1.5 compare equal.
function canonical(text) {
  let s = text.toLowerCase();
  let sign = '';
  if (s[0] === '-') { sign = '-'; s = s.slice(1); }
  let exp = 0;
  const e = s.indexOf('e');
  if (e >= 0) { exp = Number(s.slice(e + 1)); s = s.slice(0, e); }
  const dot = s.indexOf('.');
  if (dot >= 0) { exp -= s.length - dot - 1; s = s.slice(0, dot) + s.slice(dot + 1); }
  s = s.replace(/^0+/, '');
  if (s === '') return '0';
  const trailing = s.length - s.replace(/0+$/, '').length;
  return `${sign}${s.slice(0, s.length - trailing)}e${exp + trailing}`;
}

// A number of an item, by mode: 'number' refuses what a double would not
// hold exactly, 'string' keeps the text, 'bigint' makes integers bigint
// (and keeps other numbers' text).
function itemNumber(text, mode, path) {
  if (mode === 'string') return text;
  if (mode === 'bigint') return /^-?[0-9]+$/.test(text) ? BigInt(text) : text;
  const n = Number(text);
  if (canonical(String(n)) !== canonical(text)) {
    const e = new RangeError(`${path}: ${text} has more digits than a JavaScript number holds: ` +
      "open the session with numbers: 'string' or 'bigint' to read it exactly");
    e.path = path;
    throw e;
  }
  return n;
}

// Members whose values are items (attribute values by name).
const ITEM_MEMBERS = new Set(['item', 'values', 'new', 'old', 'keys', 'undeclared',
                              'newUndeclared', 'oldUndeclared']);

// Parses an answer. In 'number' mode, text without a run of 16 digits has
// no number a double could round (15 significant digits always survive),
// so JSON.parse does it; otherwise a parser of our own that knows where
// the items are.
function parse(text, mode) {
  if (mode === 'number' && !/[0-9]{16}/.test(text)) return JSON.parse(text);
  return new Parser(text, mode).document();
}

class Parser {
  constructor(text, mode) { this.s = text; this.i = 0; this.mode = mode; }

  document() {
    const v = this.value(false, '');
    this.space();
    if (this.i !== this.s.length) this.fail('trailing text');
    return v;
  }

  fail(what) { throw new SyntaxError(`ddbst answer: ${what} at ${this.i}`); }

  space() {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
      this.i++;
    }
  }

  value(inItem, path) {
    this.space();
    const c = this.s[this.i];
    if (c === '{') return this.object(inItem, path);
    if (c === '[') return this.array(inItem, path);
    if (c === '"') return this.string();
    if (c === 't' && this.s.startsWith('true', this.i)) { this.i += 4; return true; }
    if (c === 'f' && this.s.startsWith('false', this.i)) { this.i += 5; return false; }
    if (c === 'n' && this.s.startsWith('null', this.i)) { this.i += 4; return null; }
    const m = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    m.lastIndex = this.i;
    const found = m.exec(this.s);
    if (!found) this.fail('unexpected character');
    this.i = m.lastIndex;
    return inItem ? itemNumber(found[0], this.mode, path) : Number(found[0]);
  }

  string() {
    // JSON.parse reads one string exactly, escapes included
    const re = /"(?:[^"\\]|\\.)*"/y;
    re.lastIndex = this.i;
    const found = re.exec(this.s);
    if (!found) this.fail('unterminated string');
    this.i = re.lastIndex;
    return JSON.parse(found[0]);
  }

  object(inItem, path) {
    const out = {};
    this.i++;
    this.space();
    if (this.s[this.i] === '}') { this.i++; return out; }
    for (;;) {
      this.space();
      if (this.s[this.i] !== '"') this.fail('expected a member name');
      const key = this.string();
      this.space();
      if (this.s[this.i] !== ':') this.fail("expected ':'");
      this.i++;
      const sub = path ? `${path}.${key}` : key;
      const v = this.value(inItem || ITEM_MEMBERS.has(key), sub);
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.space();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  array(inItem, path) {
    const out = [];
    this.i++;
    this.space();
    if (this.s[this.i] === ']') { this.i++; return out; }
    for (;;) {
      out.push(this.value(inItem, `${path}[${out.length}]`));
      this.space();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }
}

module.exports = { stringify, parse, itemNumber, canonical, NumberText };
