'use strict';
// libddbst through koffi: the JSON entry, and the typed API's model
// description (attribute types), which answers are typed by.

const fs = require('node:fs');
const path = require('node:path');
const koffi = require('koffi');

// `npm pack` puts the library here (scripts/bundle-library.cjs).
const BUNDLED = path.join(__dirname, '..', 'native', 'libddbst.so.0');

// Opaque pointers, never decoded by koffi itself: an answer keeps its
// pointer until ddbst_json_free. Named once: koffi refuses a name twice.
koffi.pointer('ddbst_json', koffi.opaque());
koffi.pointer('ddbst_json_answer', koffi.opaque());
koffi.pointer('ddbst_model', koffi.opaque());
koffi.pointer('ddbst_prepared', koffi.opaque());

const bindings = new Map();

// Which library: the option, else $DDBST_LIBRARY, else the one the package
// carries, else libddbst.so.0 from the dynamic linker's path.
function libraryPath(given) {
  if (given) return given;
  if (process.env.DDBST_LIBRARY) return process.env.DDBST_LIBRARY;
  if (fs.existsSync(BUNDLED)) return BUNDLED;
  return 'libddbst.so.0';
}

function bind(given) {
  const library = libraryPath(given);
  let b = bindings.get(library);
  if (b) return b;
  let lib;
  try {
    lib = koffi.load(library);
  } catch (e) {
    throw new Error(`ddbst: cannot load ${library} (give the library option or set DDBST_LIBRARY): ${e.message}`);
  }
  b = {
    library,
    version: lib.func('const char *ddbst_version(void)'),
    open: lib.func('ddbst_json *ddbst_json_open(const uint8_t *config, size_t len, ' +
                   'const void *alloc, _Out_ ddbst_json_answer **error)'),
    call: lib.func('ddbst_json_answer *ddbst_json_call(const ddbst_json *session, ' +
                   'const uint8_t *request, size_t len, _Out_ size_t *answer_len)'),
    // the same with the request as a JS string: koffi writes its UTF-8,
    // NUL-terminated, straight into the call's memory (no Buffer made per
    // call), and -1 is DDBST_NUL_TERMINATED ((size_t)-1, passed signed).
    // JSON text never holds a raw NUL (JSON.stringify writes \u0000).
    callString: lib.func('ddbst_json_answer *ddbst_json_call(const ddbst_json *session, ' +
                         'const char *request, intptr_t len, _Out_ size_t *answer_len)'),
    close: lib.func('void ddbst_json_close(ddbst_json *session)'),
    free: lib.func('void ddbst_json_free(ddbst_json_answer *answer)'),
    // prepared operations (lib/prepared.cjs): values as one string of
    // NUL-ended segments, -1 for its length (DDBST_NUL_TERMINATED, passed
    // signed); the body read back as a string by koffi
    preparedNew: lib.func('ddbst_prepared *ddbst_prepared_new(const ddbst_json *session, int op, ' +
                          'const char *name, uint32_t flags, uint8_t *err)'),
    preparedFree: lib.func('void ddbst_prepared_free(ddbst_prepared *p)'),
    preparedEntity: lib.func('int ddbst_prepared_entity(const ddbst_prepared *p)'),
    preparedVersionAttribute: lib.func('int ddbst_prepared_version_attribute(const ddbst_prepared *p)'),
    preparedRun: lib.func('int ddbst_prepared_run(ddbst_prepared *p, const char *values, intptr_t len, ' +
                          'uint32_t limit, const char *cursor, intptr_t cursor_len, int64_t now, uint8_t *err)'),
    preparedBody: lib.func('const char *ddbst_prepared_body(const ddbst_prepared *p, void *len)'),
    modelLoad: lib.func('int ddbst_model_load(const uint8_t *json, size_t len, const void *opts, ' +
                        '_Out_ ddbst_model **out, void *err)'),
    modelLoadFile: lib.func('int ddbst_model_load_file(const char *path, const void *opts, ' +
                            '_Out_ ddbst_model **out, void *err)'),
    modelFree: lib.func('void ddbst_model_free(ddbst_model *model)'),
    entityCount: lib.func('int ddbst_model_entity_count(const ddbst_model *model)'),
    entityName: lib.func('const char *ddbst_model_entity_name(const ddbst_model *model, int entity)'),
    attributeCount: lib.func('int ddbst_model_attribute_count(const ddbst_model *model, int entity)'),
    attributeName: lib.func('const char *ddbst_model_attribute_name(const ddbst_model *model, int e, int a)'),
    attributeType: lib.func('const char *ddbst_model_attribute_type(const ddbst_model *model, int e, int a)'),
  };
  bindings.set(library, b);
  return b;
}

// The answer's text, read with its length, then freed whatever happens.
function take(b, ptr, len) {
  try {
    return len === undefined ? koffi.decode(ptr, 'char', -1) : koffi.decode(ptr, 'char', Number(len));
  } finally {
    b.free(ptr);
  }
}

// Where attributeTypes keeps the entities and attributes by index.
const ORDER = Symbol('ddbst.order');

// A ddbst_error (include/ddbst.h: code at 0, path at 56, message at 312).
const ERROR_SIZE = 568;
function readError(buf) {
  const text = (at) => {
    const end = buf.indexOf(0, at);
    return buf.toString('utf8', at, end < 0 || end > at + 256 ? at + 256 : end);
  };
  return { code: buf.readInt32LE(0), path: text(56), message: text(312) };
}

// { Entity: { attribute: 'binary', ... } } of the model a session loaded.
function attributeTypes(b, modelFile, modelText) {
  const out = [null];
  const err = Buffer.alloc(1024); // a ddbst_error is 568 bytes
  const rc = modelFile !== undefined
    ? b.modelLoadFile(modelFile, null, out, err)
    : b.modelLoad(Buffer.from(modelText, 'utf8'), Buffer.byteLength(modelText), null, out, err);
  if (rc !== 0) throw new Error(`ddbst: the model could not be loaded again (code ${rc})`);
  const model = out[0];
  try {
    const types = {};
    // the same by index: [{name, attributes: [[name, type], ...]}], the
    // order prepared operations pack values in
    const order = [];
    for (let e = 0; e < b.entityCount(model); e++) {
      const attrs = {};
      const list = [];
      for (let a = 0; a < b.attributeCount(model, e); a++) {
        const name = b.attributeName(model, e, a);
        const type = b.attributeType(model, e, a);
        attrs[name] = type;
        list.push([name, type]);
      }
      types[b.entityName(model, e)] = attrs;
      order.push({ name: b.entityName(model, e), attributes: list });
    }
    Object.defineProperty(types, ORDER, { value: order });
    return types;
  } finally {
    b.modelFree(model);
  }
}

module.exports = { bind, take, attributeTypes, libraryPath, readError, ORDER, ERROR_SIZE, BUNDLED };
