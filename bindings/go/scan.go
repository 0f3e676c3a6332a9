package ddbst

// Scans (docs/scans.md): the Scan body of the table or an index, its
// answers read back with the sealed cursor of the scan's segment, and the
// orphan-guard audit.

// ScanOptions say what a scan reads. The same options, less Limit, Cursor,
// Consistent and Select, read its answers back (ScanPage): the cursor is
// bound to them.
type ScanOptions struct {
	// Index scans a global or local index instead of the table.
	Index string
	// Entities keeps the items of these entities only.
	Entities []string
	// Filter is one entity's filter (give that entity alone in Entities):
	// the text form ("status = :s") or the JSON form of docs/conditions.md;
	// Params are its parameters' values ({"s": "archived"} for :s).
	Filter interface{}
	Params Values
	// Project reads these attributes only.
	Project []string
	// Segment of TotalSegments: a parallel scan (TotalSegments > 0).
	Segment       int
	TotalSegments int
	Limit         int
	// Cursor is the page before's Page.Cursor.
	Cursor     string
	Consistent bool
	// Select "COUNT" reads the number of items (Page.Matched), not the items.
	Select string
	// Now fixes the clock for defaults and a cursor's maximum age
	// (microseconds since the epoch; 0: the wall clock).
	Now int64
}

// fields are the request's members; reading an answer takes the scan's
// own settings alone.
func (o ScanOptions) fields(op string, answer bool) Values {
	req := Values{"op": op}
	if o.Index != "" {
		req["index"] = o.Index
	}
	if len(o.Entities) > 0 {
		req["entities"] = o.Entities
	}
	if o.Filter != nil {
		req["filter"] = o.Filter
	}
	if o.Params != nil {
		req["params"] = o.Params
	}
	if len(o.Project) > 0 {
		req["project"] = o.Project
	}
	if o.TotalSegments > 0 {
		req["segment"] = o.Segment
		req["totalSegments"] = o.TotalSegments
	}
	if o.Now != 0 {
		req["now"] = o.Now
	}
	if answer {
		return req
	}
	if o.Limit > 0 {
		req["limit"] = o.Limit
	}
	if o.Cursor != "" {
		req["cursor"] = o.Cursor
	}
	if o.Consistent {
		req["consistent"] = true
	}
	if o.Select != "" {
		req["select"] = o.Select
	}
	return req
}

// Scan builds the Scan request.
func (s *Session) Scan(opts ScanOptions) (*Request, error) {
	return s.Build(opts.fields("scan", false))
}

// ScanPage reads a Scan's answer, given the scan's own options. Items of no
// entity of the model (unique guards, foreign items) come back with an
// empty Entity and every attribute as stored. Page.Cursor continues this
// scan's segment.
func (s *Session) ScanPage(response []byte, opts ScanOptions) (*Page, error) {
	req := opts.fields("scanPage", true)
	req["response"] = string(response)
	var p Page
	if err := s.Call(req, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Orphan is a unique guard whose holder is missing or no longer holds the
// value (Kind "missing" or "mismatch", as docs/scans.md says).
type Orphan struct {
	Kind   string `json:"kind"`
	Entity string `json:"entity"`
	Unique string `json:"unique"`
	Guard  string `json:"guard"`
	Holder Values `json:"holder"`
}

// GuardAudit is one round of the orphan-guard audit: Request to send next
// (then call again with its answer added to the holders), or, when Request
// is nil, the number of Guards met and the Orphans among them.
type GuardAudit struct {
	Request *Request `json:"request,omitempty"`
	Guards  int      `json:"guards"`
	Orphans []Orphan `json:"orphans"`
}

// Guards audits the unique guards of the Scan answers pages, given the
// answers to the requests it gave so far (holders, in order).
func (s *Session) Guards(pages [][]byte, holders [][]byte) (*GuardAudit, error) {
	req := Values{"op": "guards", "pages": texts(pages)}
	if len(holders) > 0 {
		req["holders"] = texts(holders)
	}
	var a GuardAudit
	if err := s.Call(req, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func texts(answers [][]byte) []string {
	out := make([]string, len(answers))
	for i, a := range answers {
		out[i] = string(a)
	}
	return out
}
