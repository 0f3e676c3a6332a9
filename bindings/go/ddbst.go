// Package ddbst binds libddbst's JSON entry (ddbst_json_open, _call, _free,
// _close in include/ddbst.h) for Go, with cgo and the standard library
// alone. ddbst builds every DynamoDB request body and reads every answer
// for one model; the caller sends the bodies with its own HTTP client (an
// AWS SDK's signer, say), to the X-Amz-Target each Request names.
//
// Numbers are never decoded into float64: answers are read with
// json.Decoder.UseNumber, so an item's numbers are json.Number, their text
// exactly as DynamoDB stored it.
//
// A Session is read-only once open: any number of goroutines may use it.
package ddbst

/*
#cgo pkg-config: ddbst
#include <stdlib.h>
#include <ddbst.h>
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Config opens a session: ModelFile or Model (the model's JSON text), one of
// the two.
type Config struct {
	ModelFile string `json:"modelFile,omitempty"`
	Model     string `json:"model,omitempty"`
	// Table overrides table.name (a stage's TABLE_NAME).
	Table string `json:"table,omitempty"`
	// CursorKeys seals pagination cursors: 64 hex characters a key,
	// comma-separated, newest first.
	CursorKeys string `json:"cursorKeys,omitempty"`
	// CursorMaxAge refuses cursors older than this many seconds.
	CursorMaxAge int64 `json:"cursorMaxAge,omitempty"`
}

// Session is an open model. Close it when no call is running.
type Session struct {
	mu     sync.RWMutex // calls share it; Close takes it alone
	handle *C.ddbst_json
}

// Error is an error answer: Code is the C API's negative DDBST_E* code,
// Name its name ("EVALUE"), Path what was wrong ("facet orgId", "cursor",
// "values.orgId"), Message ddbst's words. DynamoDB is set when the answer
// was DynamoDB's own error (Page of a refused request); Errors lists every
// problem of a model that does not load.
type Error struct {
	Code     int       `json:"code"`
	Name     string    `json:"name"`
	Path     string    `json:"path"`
	Message  string    `json:"message"`
	Offset   int64     `json:"offset,omitempty"`
	Line     int       `json:"line,omitempty"`
	Column   int       `json:"column,omitempty"`
	DynamoDB *DynamoDB `json:"-"`
	Errors   []Error   `json:"-"`
}

func (e *Error) Error() string {
	if e.Path != "" {
		return e.Path + ": " + e.Message
	}
	return e.Message
}

// DynamoDB is what DynamoDB's error answer said, sorted by ddbst.
type DynamoDB struct {
	Type      string   `json:"type"`
	Kind      string   `json:"kind"`
	Message   string   `json:"message"`
	Retryable bool     `json:"retryable"`
	Reasons   []Reason `json:"reasons"`
}

// Reason is one operation's cancellation reason of a transaction.
type Reason struct {
	Code    string `json:"code"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// ErrClosed is returned by calls on a closed session.
var ErrClosed = errors.New("ddbst: the session is closed")

// Version is the library's version ("0.2.0").
func Version() string { return C.GoString(C.ddbst_version()) }

// Open loads the model and the cursor keys.
func Open(cfg Config) (*Session, error) {
	config, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var cerr *C.char
	text := C.CBytes(config)
	defer C.free(text)
	h := C.ddbst_json_open((*C.char)(text), C.size_t(len(config)), nil, &cerr)
	if h == nil {
		if cerr == nil {
			return nil, errors.New("ddbst: ddbst_json_open failed and said nothing")
		}
		answer := C.GoString(cerr)
		C.ddbst_json_free(cerr)
		return nil, answerError([]byte(answer))
	}
	return &Session{handle: h}, nil
}

// Close frees the session; calls after it return ErrClosed. It waits for
// calls in flight.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle != nil {
		C.ddbst_json_close(s.handle)
		s.handle = nil
	}
}

// CallText runs one request (JSON text) and returns the answer's text, an
// error answer included (it is not turned into an error here).
func (s *Session) CallText(request []byte) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.handle == nil {
		return nil, ErrClosed
	}
	text := C.CBytes(request)
	defer C.free(text)
	var n C.size_t
	a := C.ddbst_json_call(s.handle, (*C.char)(text), C.size_t(len(request)), &n)
	defer C.ddbst_json_free(a)
	return C.GoBytes(unsafe.Pointer(a), C.int(n)), nil
}

// Call runs one request (a value encoding/json marshals to a request
// object, {"op": ...}) and decodes the answer into answer (numbers as
// json.Number when answer holds interface{} values). An error answer is
// returned as *Error.
func (s *Session) Call(request interface{}, answer interface{}) error {
	body, err := json.Marshal(request)
	if err != nil {
		return err
	}
	text, err := s.CallText(body)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(text, []byte(`{"error":`)) {
		return answerError(text)
	}
	if answer == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	return dec.Decode(answer)
}

func answerError(text []byte) error {
	var a struct {
		Error    Error     `json:"error"`
		Errors   []Error   `json:"errors"`
		DynamoDB *DynamoDB `json:"dynamodb"`
	}
	if err := json.Unmarshal(text, &a); err != nil {
		return fmt.Errorf("ddbst: an answer that does not parse: %v", err)
	}
	e := a.Error
	e.Errors = a.Errors
	e.DynamoDB = a.DynamoDB
	return &e
}

// Values are an item's attribute values by name: strings for any type's
// text, json.Number (or Go integers) for numbers, bools, []byte for binary
// (encoding/json writes it as standard base64, the text ddbst takes), and
// slices and maps for lists, maps and sets. Read back, binary is its base64
// text (decode it with encoding/base64) and numbers are json.Number.
type Values = map[string]interface{}

// Request is a request body and where it goes: POST Body with the headers
// X-Amz-Target: Target and Content-Type: application/x-amz-json-1.0.
type Request struct {
	Operation string          `json:"operation"`
	Target    string          `json:"target"`
	Body      json.RawMessage `json:"body"`
	// Item is what a put or create writes: defaults, generated ids and
	// timestamps filled.
	Item Values `json:"item,omitempty"`
}

// Build runs a request that builds one body ("get", "put", "create",
// "update", "delete", "query", "transact", "createTable").
func (s *Session) Build(request Values) (*Request, error) {
	var r Request
	if err := s.Call(request, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// BuildBatch runs "batchGet" or "batchWrite": the bodies, cut into
// DynamoDB's chunks.
func (s *Session) BuildBatch(request Values) ([]Request, error) {
	var r struct {
		Requests []Request `json:"requests"`
	}
	if err := s.Call(request, &r); err != nil {
		return nil, err
	}
	return r.Requests, nil
}

// PageItem is one item read back: its entity and its values.
type PageItem struct {
	Entity     string `json:"entity"`
	Item       Values `json:"item"`
	Undeclared Values `json:"undeclared,omitempty"`
}

// Page is DynamoDB's answer read back. An empty TransactGetItems slot is a
// nil entry of Items; an item of no entity of the model (a scan's unique
// guard) has an empty Entity. Matched and Scanned are the answer's Count
// and ScannedCount where it gave them (a select COUNT, a scan).
type Page struct {
	Items    []*PageItem `json:"items"`
	Count    int         `json:"count"`
	HasMore  bool        `json:"hasMore"`
	Matched  int         `json:"matched,omitempty"`
	Scanned  int         `json:"scanned,omitempty"`
	Cursor   string      `json:"cursor,omitempty"`
	Followup *Request    `json:"followup,omitempty"`
}

// PageOptions say what answered: Operation ("Query" when empty, "GetItem",
// "BatchGetItem", "BatchWriteItem", "TransactGetItems"), and for a query's
// next cursor its Pattern and Values.
type PageOptions struct {
	Operation string
	Pattern   string
	Values    Values
	Now       int64
}

// Page reads DynamoDB's answer (the response body, as it came). DynamoDB's
// error answer is returned as *Error with DynamoDB set.
func (s *Session) Page(response []byte, opts PageOptions) (*Page, error) {
	req := Values{"op": "page", "response": string(response)}
	if opts.Operation != "" {
		req["operation"] = opts.Operation
	}
	if opts.Pattern != "" {
		req["pattern"] = opts.Pattern
		req["values"] = opts.Values
	}
	if opts.Now != 0 {
		req["now"] = opts.Now
	}
	var p Page
	if err := s.Call(req, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Explanation says, in the model's words, why DynamoDB refused a write.
type Explanation struct {
	DynamoDB    DynamoDB          `json:"dynamodb"`
	Kind        string            `json:"kind"`
	Explanation string            `json:"explanation"`
	Failures    []json.RawMessage `json:"failures,omitempty"`
}

// Explain reads DynamoDB's error answer to the write `request` (the request
// object the body was built from, with the values its answer's Item gave).
func (s *Session) Explain(request Values, response []byte) (*Explanation, error) {
	var e Explanation
	if err := s.Call(Values{"op": "explain", "request": request, "response": string(response)}, &e); err != nil {
		return nil, err
	}
	return &e, nil
}
