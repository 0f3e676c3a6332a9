/* ddbst._native: the per-call path of the Python package in C. A request
 * dict is written as JSON here (no json.dumps), handed to ddbst_json_call
 * with the GIL released, and a body-building answer is split here into
 * the body's exact bytes and the rest, so Python decodes only what it
 * returns (the "item" of a put). Everything else of the package stays
 * ctypes: this module is optional, and the package works without it.
 *
 * Values written: dict (str keys), list, tuple, str, int, bool, None,
 * float (repr), bytes-like (standard base64), and, through the helpers
 * the package registers (_values.native_default), Decimal, set, frozenset
 * and datetime. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

#include <ddbst.h>

/* ---- a growable byte buffer ---- */

typedef struct wbuf {
  char *p;
  size_t len, cap;
} wbuf;

static int wb_grow(wbuf *b, size_t more) {
  if (b->len + more <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 512;
  while (cap < b->len + more) cap *= 2;
  char *p = PyMem_Realloc(b->p, cap);
  if (!p) {
    PyErr_NoMemory();
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

static int wb_put(wbuf *b, const char *s, size_t n) {
  if (wb_grow(b, n)) return -1;
  memcpy(b->p + b->len, s, n);
  b->len += n;
  return 0;
}

static int wb_string(wbuf *b, const char *s, Py_ssize_t n) {
  static const char hex[] = "0123456789abcdef";
  if (wb_grow(b, (size_t)n * 6 + 2)) return -1;
  char *o = b->p + b->len;
  *o++ = '"';
  for (Py_ssize_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = (char)c;
    } else if (c < 0x20) {
      *o++ = '\\';
      *o++ = 'u';
      *o++ = '0';
      *o++ = '0';
      *o++ = hex[c >> 4];
      *o++ = hex[c & 15];
    } else {
      *o++ = (char)c;
    }
  }
  *o++ = '"';
  b->len = (size_t)(o - b->p);
  return 0;
}

static int wb_base64(wbuf *b, const unsigned char *s, size_t n) {
  static const char abc[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (wb_grow(b, (n + 2) / 3 * 4 + 2)) return -1;
  char *o = b->p + b->len;
  *o++ = '"';
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
    *o++ = abc[v >> 18];
    *o++ = abc[v >> 12 & 63];
    *o++ = abc[v >> 6 & 63];
    *o++ = abc[v & 63];
  }
  if (i < n) {
    unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0);
    *o++ = abc[v >> 18];
    *o++ = abc[v >> 12 & 63];
    *o++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
    *o++ = '=';
  }
  *o++ = '"';
  b->len = (size_t)(o - b->p);
  return 0;
}

/* ---- values ---- */

/* _values.native_default(value) -> (kind, replacement): kind 0 writes the
 * replacement as a value again (a set's sorted list, a datetime's text),
 * kind 1 writes it (a str) bare, as a number's text (a Decimal). */
static PyObject *native_default;

#define MAX_DEPTH 64

static int write_value(wbuf *b, PyObject *v, int depth);

static int write_number_text(wbuf *b, PyObject *s) {
  Py_ssize_t n;
  const char *t = PyUnicode_AsUTF8AndSize(s, &n);
  return t ? wb_put(b, t, (size_t)n) : -1;
}

static int write_dict(wbuf *b, PyObject *d, int depth) {
  if (wb_put(b, "{", 1)) return -1;
  PyObject *k, *v;
  Py_ssize_t pos = 0;
  int first = 1;
  while (PyDict_Next(d, &pos, &k, &v)) {
    if (!PyUnicode_Check(k)) {
      PyErr_SetString(PyExc_TypeError, "keys of a request's dicts are str");
      return -1;
    }
    Py_ssize_t n;
    const char *t = PyUnicode_AsUTF8AndSize(k, &n);
    if (!t || (!first && wb_put(b, ",", 1)) || wb_string(b, t, n) ||
        wb_put(b, ":", 1) || write_value(b, v, depth + 1))
      return -1;
    first = 0;
  }
  return wb_put(b, "}", 1);
}

static int write_items(wbuf *b, PyObject *seq, int depth) {
  PyObject *fast = PySequence_Fast(seq, "a sequence");
  if (!fast) return -1;
  int rc = wb_put(b, "[", 1);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject **items = PySequence_Fast_ITEMS(fast);
  for (Py_ssize_t i = 0; i < n && !rc; i++)
    rc = (i && wb_put(b, ",", 1)) || write_value(b, items[i], depth + 1);
  Py_DECREF(fast);
  return rc ? -1 : wb_put(b, "]", 1);
}

static int write_value(wbuf *b, PyObject *v, int depth) {
  if (depth > MAX_DEPTH) {
    PyErr_SetString(PyExc_ValueError, "a request nested too deep");
    return -1;
  }
  if (PyUnicode_Check(v)) {
    Py_ssize_t n;
    const char *t = PyUnicode_AsUTF8AndSize(v, &n);
    return t ? wb_string(b, t, n) : -1;
  }
  if (v == Py_None) return wb_put(b, "null", 4);
  if (v == Py_True) return wb_put(b, "true", 4);
  if (v == Py_False) return wb_put(b, "false", 5);
  if (PyLong_Check(v)) {
    PyObject *s = PyLong_Type.tp_repr(v); /* exact, and not a subclass's */
    if (!s) return -1;
    int rc = write_number_text(b, s);
    Py_DECREF(s);
    return rc;
  }
  if (PyFloat_Check(v)) {
    double d = PyFloat_AS_DOUBLE(v);
    if (!isfinite(d)) {
      PyErr_SetString(PyExc_ValueError, "a float that is no number DynamoDB stores");
      return -1;
    }
    char *s = PyOS_double_to_string(d, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (!s) return -1;
    int rc = wb_put(b, s, strlen(s));
    PyMem_Free(s);
    return rc;
  }
  if (PyDict_Check(v)) return write_dict(b, v, depth);
  if (PyList_Check(v) || PyTuple_Check(v)) return write_items(b, v, depth);
  if (PyBytes_Check(v))
    return wb_base64(b, (const unsigned char *)PyBytes_AS_STRING(v),
                     (size_t)PyBytes_GET_SIZE(v));
  if (PyObject_CheckBuffer(v)) {
    Py_buffer view;
    if (PyObject_GetBuffer(v, &view, PyBUF_SIMPLE)) return -1;
    int rc = wb_base64(b, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return rc;
  }
  if (!native_default) {
    PyErr_Format(PyExc_TypeError, "%s is not a value ddbst takes",
                 Py_TYPE(v)->tp_name);
    return -1;
  }
  PyObject *r = PyObject_CallOneArg(native_default, v);
  if (!r) return -1;
  long kind = PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2
                  ? PyLong_AsLong(PyTuple_GET_ITEM(r, 0))
                  : -1;
  int rc;
  if (kind == 1 && PyUnicode_Check(PyTuple_GET_ITEM(r, 1)))
    rc = write_number_text(b, PyTuple_GET_ITEM(r, 1));
  else if (kind == 0)
    rc = write_value(b, PyTuple_GET_ITEM(r, 1), depth + 1);
  else {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "native_default gave no (kind, value)");
    rc = -1;
  }
  Py_DECREF(r);
  return rc;
}

/* ---- the call ---- */

static ddbst_json *session_of(PyObject *handle) {
  void *p = PyLong_AsVoidPtr(handle);
  if (!p && !PyErr_Occurred())
    PyErr_SetString(PyExc_ValueError, "a closed session");
  return p;
}

/* The answer to `request` (a dict), as ddbst_json_call gives it; the
 * caller frees it with ddbst_json_free. NULL with an exception set. */
static char *run(PyObject *handle, PyObject *request, size_t *len) {
  ddbst_json *s = session_of(handle);
  if (!s) return NULL;
  wbuf b = {0};
  if (write_value(&b, request, 0)) {
    PyMem_Free(b.p);
    return NULL;
  }
  char *answer;
  Py_BEGIN_ALLOW_THREADS
  answer = ddbst_json_call(s, b.p, b.len, len);
  Py_END_ALLOW_THREADS
  PyMem_Free(b.p);
  return answer;
}

static PyObject *py_encode(PyObject *self, PyObject *value) {
  (void)self;
  wbuf b = {0};
  if (write_value(&b, value, 0)) {
    PyMem_Free(b.p);
    return NULL;
  }
  PyObject *out = PyBytes_FromStringAndSize(b.p, (Py_ssize_t)b.len);
  PyMem_Free(b.p);
  return out;
}

static PyObject *py_call(PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs) {
  (void)self;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "call(handle, request)");
    return NULL;
  }
  size_t len;
  char *answer = run(args[0], args[1], &len);
  if (!answer) return NULL;
  PyObject *out = PyBytes_FromStringAndSize(answer, (Py_ssize_t)len);
  ddbst_json_free(answer);
  return out;
}

/* The end of the JSON value at `p` (ddbst wrote it: well-formed). */
static const char *skip_value(const char *p, const char *end) {
  int depth = 0;
  do {
    if (p >= end) return NULL;
    char c = *p++;
    if (c == '"') {
      while (p < end && *p != '"') p += *p == '\\' ? 2 : 1;
      if (p++ >= end) return NULL;
    } else if (c == '{' || c == '[') {
      depth++;
    } else if (c == '}' || c == ']') {
      depth--;
    } else if (depth == 0) {
      /* a bare scalar at the top: up to the next delimiter */
      while (p < end && *p != ',' && *p != '}' && *p != ']') p++;
    }
  } while (depth > 0);
  return p;
}

/* build(handle, request) -> (operation, body, rest) for a request that
 * builds one body: the body's bytes exactly as ddbst wrote them, and the
 * members after it as JSON text ("{...}", or None when there are none).
 * An answer of another shape (an error) is returned whole:
 * (None, answer, None). */
static PyObject *py_build(PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs) {
  (void)self;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "build(handle, request)");
    return NULL;
  }
  size_t len;
  char *answer = run(args[0], args[1], &len);
  if (!answer) return NULL;
  PyObject *out = NULL;
  const char *end = answer + len;
  static const char head[] = "{\"operation\":\"";
  const char *body = strstr(answer, ",\"body\":");
  if (strncmp(answer, head, sizeof head - 1) != 0 || !body) {
    out = Py_BuildValue("(Oy#O)", Py_None, answer, (Py_ssize_t)len, Py_None);
    goto done;
  }
  const char *op = answer + sizeof head - 1;
  const char *op_end = memchr(op, '"', (size_t)(end - op));
  body += 8;
  const char *body_end = skip_value(body, end);
  if (!op_end || !body_end) {
    PyErr_SetString(PyExc_ValueError, "an answer ddbst did not write");
    goto done;
  }
  if (*body_end == ',') {
    /* the rest, as an object of its own: "{" + the members after */
    Py_ssize_t n = (Py_ssize_t)(end - body_end);
    PyObject *rest = PyBytes_FromStringAndSize(NULL, n);
    if (!rest) goto done;
    char *r = PyBytes_AS_STRING(rest);
    r[0] = '{';
    memcpy(r + 1, body_end + 1, (size_t)n - 1);
    out = Py_BuildValue("(s#y#N)", op, (Py_ssize_t)(op_end - op), body,
                        (Py_ssize_t)(body_end - body), rest);
  } else {
    out = Py_BuildValue("(s#y#O)", op, (Py_ssize_t)(op_end - op), body,
                        (Py_ssize_t)(body_end - body), Py_None);
  }
done:
  ddbst_json_free(answer);
  return out;
}

/* prepared_run(prepared, packed, limit, cursor, now) -> (op, body bytes),
 * or (negative code, path bytes, message bytes): one ddbst_prepared_run
 * (ddbst/_prepared.py packs the values; the caller holds the prepared
 * operation and its session open) with the GIL released, its body copied
 * out. */
static PyObject *py_prepared_run(PyObject *self, PyObject *const *args,
                                 Py_ssize_t nargs) {
  (void)self;
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError,
                    "prepared_run(prepared, packed, limit, cursor, now)");
    return NULL;
  }
  ddbst_prepared *p = PyLong_AsVoidPtr(args[0]);
  char *values, *cursor = NULL;
  Py_ssize_t len, cursor_len = 0;
  if (!p) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "a closed prepared operation");
    return NULL;
  }
  if (PyBytes_AsStringAndSize(args[1], &values, &len)) return NULL;
  unsigned long limit = PyLong_AsUnsignedLong(args[2]);
  if (limit == (unsigned long)-1 && PyErr_Occurred()) return NULL;
  if (args[3] != Py_None &&
      PyBytes_AsStringAndSize(args[3], &cursor, &cursor_len))
    return NULL;
  long long now = PyLong_AsLongLong(args[4]);
  if (now == -1 && PyErr_Occurred()) return NULL;
  ddbst_error err;
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = ddbst_prepared_run(p, values, (size_t)len, (uint32_t)limit, cursor,
                          (size_t)cursor_len, (int64_t)now, &err);
  Py_END_ALLOW_THREADS
  if (rc < 0)
    return Py_BuildValue("(iyy)", rc, err.path, err.message);
  size_t n;
  const char *body = ddbst_prepared_body(p, &n);
  return Py_BuildValue("(iy#)", rc, body, (Py_ssize_t)n);
}

static PyObject *py_set_default(PyObject *self, PyObject *fn) {
  (void)self;
  Py_XINCREF(fn);
  Py_XSETREF(native_default, fn);
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))py_call, METH_FASTCALL,
     "call(handle, request) -> the answer's bytes"},
    {"build", (PyCFunction)(void (*)(void))py_build, METH_FASTCALL,
     "build(handle, request) -> (operation, body bytes, rest or None)"},
    {"prepared_run", (PyCFunction)(void (*)(void))py_prepared_run,
     METH_FASTCALL,
     "prepared_run(prepared, packed, limit, cursor, now) -> (op, body) or "
     "(code, path, message)"},
    {"encode", py_encode, METH_O, "encode(value) -> its JSON bytes"},
    {"set_default", py_set_default, METH_O,
     "set_default(fn): fn(value) -> (kind, replacement) for other types"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native",
    "The per-call path of ddbst in C (optional: see ddbst/_session.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
