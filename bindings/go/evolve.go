package ddbst

// Model evolution (docs/evolution.md): the session holds the new model;
// Old names the model the table was written with.

// Old is the older model: its file or its JSON text (one of the two), and
// Table, its table name in force when it differs from the model's (as
// Config.Table).
type Old struct {
	File  string
	Model string
	Table string
}

func (o Old) fields(op string) Values {
	req := Values{"op": op}
	if o.File != "" {
		req["oldFile"] = o.File
	}
	if o.Model != "" {
		req["old"] = o.Model
	}
	if o.Table != "" {
		req["oldTable"] = o.Table
	}
	return req
}

// Change is one difference of two models and what it does to the items
// stored: Class "free", "backfill", "rewrite", "cleanup", "unsafe" or
// "impossible"; What the path in the model; Check, for an unsafe change,
// what to check first; UpdateTable the table's steps
// ({"addIndex": "GSI2"}), in order.
type Change struct {
	Class       string   `json:"class"`
	What        string   `json:"what"`
	Reason      string   `json:"reason"`
	Entities    []string `json:"entities,omitempty"`
	Patterns    []string `json:"patterns,omitempty"`
	Check       string   `json:"check,omitempty"`
	UpdateTable []Values `json:"updateTable,omitempty"`
}

// Diff is every change from the old model to the session's, and the worst
// class among them.
type Diff struct {
	Table   string   `json:"table"`
	Changes []Change `json:"changes"`
	Worst   string   `json:"worst"`
}

// DiffOptions: TableRenamed says the table's new name is meant (the items
// were copied there), not a change to classify.
type DiffOptions struct {
	TableRenamed bool
	// Text asks for the changes as ddbst diff prints them (Diff.Text).
	Text bool
}

// Diff compares the old model with the session's.
func (s *Session) Diff(old Old, opts DiffOptions) (*Diff, error) {
	req := old.fields("diff")
	if opts.TableRenamed {
		req["tableRenamed"] = true
	}
	var d Diff
	if err := s.Call(req, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// DiffText is the diff as `ddbst diff` prints it, and the worst class.
func (s *Session) DiffText(old Old, opts DiffOptions) (text, worst string, err error) {
	req := old.fields("diff")
	req["format"] = "text"
	if opts.TableRenamed {
		req["tableRenamed"] = true
	}
	var a struct {
		Text  string `json:"text"`
		Worst string `json:"worst"`
	}
	if err := s.Call(req, &a); err != nil {
		return "", "", err
	}
	return a.Text, a.Worst, nil
}

// Migration is a migration from Old to the session's model. Unsafe accepts
// the unsafe changes: every item is then checked against the new model as
// it is migrated, and one it refuses is reported, never written.
type Migration struct {
	Old    Old
	Unsafe bool
}

func (m Migration) fields(op string) Values {
	req := m.Old.fields(op)
	if m.Unsafe {
		req["unsafe"] = true
	}
	return req
}

// PlanStep is one step of a migration plan: Step "addIndex" (send Request,
// then wait as Then says), "scan" (the pass: MigrateStep on every page of a
// Scan of the whole table; Work is what it does), "verify" (MigrateVerify
// on every page of a second Scan) or "removeIndex" (send Request).
type PlanStep struct {
	Step    string   `json:"step"`
	Index   string   `json:"index,omitempty"`
	Request *Request `json:"request,omitempty"`
	Then    string   `json:"then,omitempty"`
	Work    []Change `json:"work,omitempty"`
}

// MigrationPlan is the steps carrying the table from the old model to the
// new one, in order; Notes are what is left to the caller (time to live).
type MigrationPlan struct {
	Table string     `json:"table"`
	Worst string     `json:"worst"`
	Steps []PlanStep `json:"steps"`
	Notes []string   `json:"notes"`
}

// MigratePlan plans the migration. An impossible change, or an unsafe one
// without m.Unsafe, is the error.
func (s *Session) MigratePlan(m Migration) (*MigrationPlan, error) {
	var p MigrationPlan
	if err := s.Call(m.fields("migratePlan"), &p); err != nil {
		return nil, err
	}
	for i := range p.Steps {
		if r := p.Steps[i].Request; r != nil && r.Target == "" {
			r.Target = "DynamoDB_20120810." + r.Operation
		}
	}
	return &p, nil
}

// MigratePlanText is the plan as `ddbst migrate plan` prints it.
func (s *Session) MigratePlanText(m Migration) (string, error) {
	req := m.fields("migratePlan")
	req["format"] = "text"
	var a struct {
		Text string `json:"text"`
	}
	if err := s.Call(req, &a); err != nil {
		return "", err
	}
	return a.Text, nil
}

// Report says why the pass leaves an item alone: its key (attribute name
// to text), its entity, and the reason.
type Report struct {
	Key    map[string]string `json:"key"`
	Entity string            `json:"entity"`
	Reason string            `json:"reason"`
}

// MigrationItem is one item's outcome in a page of the pass: Outcome
// "write" (send the Request), "skip" (already in the new model's shape),
// "guard" (a unique guard: it moves with its holder), "refused" or
// "foreign" (see Report). Index is the item's place in the page.
type MigrationItem struct {
	Outcome string `json:"outcome"`
	Index   int    `json:"index"`
	Request
	Report *Report `json:"report,omitempty"`
}

// MigrationStep is what one page of the pass needs, and the count of each
// outcome.
type MigrationStep struct {
	Items   []MigrationItem `json:"items"`
	Writes  int             `json:"writes"`
	Skipped int             `json:"skipped"`
	Guards  int             `json:"guards"`
	Refused int             `json:"refused"`
	Foreign int             `json:"foreign"`
}

// MigrateStep reads one page of a Scan of the whole table (no index,
// filter or projection; any segment) into each item's write. A write that
// DynamoDB refuses (the item changed since the Scan) is redone by scanning
// its page again.
func (s *Session) MigrateStep(m Migration, response []byte) (*MigrationStep, error) {
	req := m.fields("migrateStep")
	req["response"] = string(response)
	var st MigrationStep
	if err := s.Call(req, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Problem is an item not (yet) in the new model's shape.
type Problem struct {
	Key     map[string]string `json:"key"`
	Entity  string            `json:"entity"`
	Problem string            `json:"problem"`
}

// MigrateVerify checks every item of a Scan page against the new model; a
// verify pass over the whole table with no problem ends the migration.
func (s *Session) MigrateVerify(m Migration, response []byte) ([]Problem, error) {
	req := m.fields("migrateVerify")
	req["response"] = string(response)
	var a struct {
		Problems []Problem `json:"problems"`
	}
	if err := s.Call(req, &a); err != nil {
		return nil, err
	}
	return a.Problems, nil
}

// MigrationWrite is a service's write while the migration runs; Moves says
// the entity's primary key moves (the write then keeps one copy of the
// item, under its old key or its new one).
type MigrationWrite struct {
	Request
	Moves bool `json:"moves"`
}

// MigrateWrite builds a service's write during the migration, by the
// writer protocol of docs/evolution.md: write "create", "put" or "delete"
// of entity's item values (now: the clock, microseconds; 0 the wall clock).
func (s *Session) MigrateWrite(m Migration, write, entity string, values Values, now int64) (*MigrationWrite, error) {
	req := m.fields("migrateWrite")
	req["write"] = write
	req["entity"] = entity
	req["values"] = values
	if now != 0 {
		req["now"] = now
	}
	var w MigrationWrite
	if err := s.Call(req, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// UpdateTimeToLive builds the UpdateTimeToLive request: expiry enabled on
// the model's ttlAttribute, or, with disable, turned off on that attribute,
// which the model no longer declares (a migration's note says when).
func (s *Session) UpdateTimeToLive(disable string) (*Request, error) {
	req := Values{"op": "updateTimeToLive"}
	if disable != "" {
		req["disable"] = disable
	}
	return s.Build(req)
}
