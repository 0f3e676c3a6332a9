package ddbst_test

// Scans, hydration, migrations and time to live on DynamoDB Local: ddbst's
// bodies sent by curl, signed by libcurl's own SigV4 (--aws-sigv4, as
// tests/data/responses/capture.sh sends them): Go's standard library has
// no signer and the binding takes no module from the network. Run under
// scripts/dynamodb-local (bindings/test go), which sets DDBST_ENDPOINT.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	ddbst "github.com/ddbst/ddbst/bindings/go"
)

func endpoint(t *testing.T) string {
	t.Helper()
	e := os.Getenv("DDBST_ENDPOINT")
	if e == "" {
		t.Skip("DDBST_ENDPOINT is not set: run under scripts/dynamodb-local bindings/test go")
	}
	return e
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// send POSTs body to target and returns the HTTP status and the answer.
func send(t *testing.T, target string, body []byte) (int, []byte) {
	t.Helper()
	cmd := exec.Command("curl", "-sS", "--aws-sigv4", "aws:amz:"+env("AWS_REGION", "us-east-1")+":dynamodb",
		"--user", env("AWS_ACCESS_KEY_ID", "local")+":"+env("AWS_SECRET_ACCESS_KEY", "local"),
		"-H", "X-Amz-Target: "+target, "-H", "Content-Type: application/x-amz-json-1.0",
		"--data-binary", "@-", "-w", "\n%{http_code}", endpoint(t))
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	cut := bytes.LastIndexByte(out, '\n')
	status, err := strconv.Atoi(string(out[cut+1:]))
	if cut < 0 || err != nil {
		t.Fatalf("curl printed no status: %q", out)
	}
	return status, out[:cut]
}

// ok sends a request ddbst built and fails the test unless DynamoDB took it.
func ok(t *testing.T, r *ddbst.Request) []byte {
	t.Helper()
	status, answer := send(t, r.Target, r.Body)
	if status != 200 {
		t.Fatalf("%s refused (%d): %s\nbody: %s", r.Operation, status, answer, r.Body)
	}
	return answer
}

func build(t *testing.T, s *ddbst.Session, request ddbst.Values) *ddbst.Request {
	t.Helper()
	r, err := s.Build(request)
	if err != nil {
		t.Fatalf("%v: %v", request["op"], err)
	}
	return r
}

// table opens model on a table of its own, made now and deleted after the
// test.
func table(t *testing.T, model, prefix string) (*ddbst.Session, string) {
	t.Helper()
	endpoint(t)
	name := fmt.Sprintf("%s-go-%d", prefix, os.Getpid())
	s, err := ddbst.Open(ddbst.Config{ModelFile: filepath.Join(root, model), Table: name, CursorKeys: cursorKeys})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, build(t, s, ddbst.Values{"op": "createTable"}))
	t.Cleanup(func() {
		ok(t, build(t, s, ddbst.Values{"op": "deleteTable"}))
		s.Close()
	})
	return s, name
}

// writeAll sends batchWrite's requests and their follow-ups until done.
func writeAll(t *testing.T, s *ddbst.Session, items []ddbst.Values) {
	t.Helper()
	reqs, err := s.BuildBatch(ddbst.Values{"op": "batchWrite", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		for next := &r; next != nil; {
			p, err := s.Page(ok(t, next), ddbst.PageOptions{Operation: "BatchWriteItem"})
			if err != nil {
				t.Fatal(err)
			}
			next = p.Followup
		}
	}
}

// scanKeys is every "PK SK" of the table, read by a plain Scan that ddbst
// did not build: the oracle.
func scanKeys(t *testing.T, name string) []string {
	var keys []string
	var start json.RawMessage
	for {
		body := fmt.Sprintf(`{"TableName":%q,"ConsistentRead":true}`, name)
		if start != nil {
			body = body[:len(body)-1] + `,"ExclusiveStartKey":` + string(start) + "}"
		}
		status, answer := send(t, "DynamoDB_20120810.Scan", []byte(body))
		var a struct {
			Items            []map[string]struct{ S string }
			LastEvaluatedKey json.RawMessage
		}
		if status != 200 || json.Unmarshal(answer, &a) != nil {
			t.Fatalf("oracle scan (%d): %s", status, answer)
		}
		for _, it := range a.Items {
			keys = append(keys, it["PK"].S+" "+it["SK"].S)
		}
		if a.LastEvaluatedKey == nil {
			return keys
		}
		start = a.LastEvaluatedKey
	}
}

func sorted(keys []string) string {
	out := append([]string(nil), keys...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return strings.Join(out, "\n")
}

// A parallel scan of 3 segments through sealed cursors meets every item a
// plain Scan meets, unique guards included as items of no entity; a
// segment's cursor is refused by another; a filtered scan reads one entity;
// the orphan-guard audit names the guard whose holder was deleted.
func TestScanOnDynamoDBLocal(t *testing.T) {
	s, name := table(t, "examples/saas/model.json", "scan")
	ok(t, build(t, s, ddbst.Values{"op": "put", "entity": "Organisation", "values": ddbst.Values{"orgId": "acme", "name": "Acme", "plan": "pro"}}))
	for i := 0; i < 6; i++ {
		ok(t, build(t, s, ddbst.Values{"op": "create", "entity": "User", "values": ddbst.Values{
			"orgId": "acme", "userId": fmt.Sprintf("u%d", i), "email": fmt.Sprintf("User%d@Acme.example", i),
			"role": "member", "name": fmt.Sprintf("User %d", i)}}))
	}
	var projects []ddbst.Values
	var archived []ddbst.Values
	for i := 0; i < 9; i++ {
		p := ddbst.Values{"orgId": "acme", "projectId": fmt.Sprintf("p%d", i),
			"createdAt": fmt.Sprintf("2026-03-0%dT09:00:00Z", i+1), "name": fmt.Sprintf("Project %d", i), "status": "active"}
		if i%3 == 0 {
			p["status"] = "archived"
			archived = append(archived, p)
		}
		projects = append(projects, ddbst.Values{"op": "put", "entity": "Project", "values": p})
	}
	writeAll(t, s, projects)
	oracle := scanKeys(t, name)
	if len(oracle) != 1+2*6+9 {
		t.Fatalf("the table holds %d items", len(oracle))
	}

	first, err := s.Scan(ddbst.ScanOptions{Segment: 1, TotalSegments: 3, Limit: 4, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"TableName":"` + name + `","Segment":1,"TotalSegments":3,"Limit":4,"ConsistentRead":true}`; string(first.Body) != want || first.Target != "DynamoDB_20120810.Scan" {
		t.Errorf("scan: %s %s\nwant %s", first.Target, first.Body, want)
	}
	var seen []string
	guards := 0
	for segment := 0; segment < 3; segment++ {
		opts := ddbst.ScanOptions{Segment: segment, TotalSegments: 3, Limit: 4, Consistent: true}
		for {
			r, err := s.Scan(opts)
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.ScanPage(ok(t, r), opts)
			if err != nil {
				t.Fatal(err)
			}
			if p.Scanned != p.Count {
				t.Errorf("scanned %d, count %d: no filter drops an item", p.Scanned, p.Count)
			}
			for _, e := range p.Items {
				if e.Entity == "" {
					guards++
					seen = append(seen, fmt.Sprint(e.Item["PK"], " ", e.Item["SK"]))
					continue
				}
				var k struct {
					Keys map[string]string `json:"keys"`
				}
				if err := s.Call(ddbst.Values{"op": "keys", "entity": e.Entity, "values": e.Item}, &k); err != nil {
					t.Fatal(err)
				}
				seen = append(seen, k.Keys["PK"]+" "+k.Keys["SK"])
			}
			if !p.HasMore {
				break
			}
			opts.Cursor = p.Cursor
		}
	}
	if guards != 6 || sorted(seen) != sorted(oracle) {
		t.Errorf("%d guards; the segments met:\n%s\nthe table holds:\n%s", guards, sorted(seen), sorted(oracle))
	}

	// a segment's cursor, given to another segment
	opts := ddbst.ScanOptions{Segment: 0, TotalSegments: 3, Limit: 1}
	p, err := s.ScanPage(ok(t, mustScan(t, s, opts)), opts)
	if err != nil || !p.HasMore {
		t.Fatalf("one item of segment 0: %v %+v", err, p)
	}
	_, err = s.Scan(ddbst.ScanOptions{Segment: 1, TotalSegments: 3, Cursor: p.Cursor})
	var e *ddbst.Error
	if !asError(err, &e) || e.Name != "ECURSOR" || e.Path != "cursor" {
		t.Errorf("segment 0's cursor in segment 1: %v", err)
	}

	// one entity, filtered, read back typed
	opts = ddbst.ScanOptions{Entities: []string{"Project"}, Filter: "status = :s",
		Params: ddbst.Values{"s": "archived"}, Limit: 5, Consistent: true}
	var found []ddbst.Values
	for {
		p, err := s.ScanPage(ok(t, mustScan(t, s, opts)), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Items {
			if e.Entity != "Project" {
				t.Errorf("a filtered scan of Project met %q", e.Entity)
			}
			found = append(found, e.Item)
		}
		if !p.HasMore {
			break
		}
		opts.Cursor = p.Cursor
	}
	if got, want := sortedItems(found), sortedItems(archived); got != want {
		t.Errorf("archived projects:\n got %s\nwant %s", got, want)
	}

	audit := func() *ddbst.GuardAudit {
		var pages, holders [][]byte
		opts := ddbst.ScanOptions{Limit: 7, Consistent: true}
		for {
			answer := ok(t, mustScan(t, s, opts))
			pages = append(pages, answer)
			p, err := s.ScanPage(answer, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasMore {
				break
			}
			opts.Cursor = p.Cursor
		}
		for {
			a, err := s.Guards(pages, holders)
			if err != nil {
				t.Fatal(err)
			}
			if a.Request == nil {
				return a
			}
			holders = append(holders, ok(t, a.Request))
		}
	}
	if a := audit(); a.Guards != 6 || len(a.Orphans) != 0 {
		t.Errorf("audit of a whole table: %+v", a)
	}
	// deleted behind ddbst's back: its guard stays
	if status, answer := send(t, "DynamoDB_20120810.DeleteItem", []byte(`{"TableName":"`+name+
		`","Key":{"PK":{"S":"ORG#acme"},"SK":{"S":"USER#u3"}}}`)); status != 200 {
		t.Fatalf("delete: %s", answer)
	}
	a := audit()
	orphans, _ := json.Marshal(a.Orphans)
	if want := `[{"kind":"missing","entity":"User","unique":"email","guard":"EMAIL#user3@acme.example","holder":{"PK":"ORG#acme","SK":"USER#u3"}}]`; a.Guards != 6 || string(orphans) != want {
		t.Errorf("audit after a delete: %d guards, orphans %s\nwant %s", a.Guards, orphans, want)
	}
}

// sortedItems is items' text, one a line, in sorted order (a scan's order
// is its own).
func sortedItems(items []ddbst.Values) string {
	var lines []string
	for _, it := range items {
		lines = append(lines, fmt.Sprint(it))
	}
	return sorted(lines)
}

func mustScan(t *testing.T, s *ddbst.Session, opts ddbst.ScanOptions) *ddbst.Request {
	t.Helper()
	r, err := s.Scan(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func asError(err error, e **ddbst.Error) bool {
	x, is := err.(*ddbst.Error)
	*e = x
	return is
}

// tests/integration/models/hydrate.json keys Member in a KEYS_ONLY index by
// team and join date: 130 members, read through the index in one page and
// hydrated (BatchGetItem of 100 keys and 30), come back whole in the
// index's order; one deleted between the query and the hydration is
// missing.
func TestHydrateOnDynamoDBLocal(t *testing.T) {
	s, name := table(t, "tests/integration/models/hydrate.json", "hydrate")
	const n = 130
	member := func(i int) ddbst.Values {
		m := (i * 37) % n
		return ddbst.Values{"orgId": "o1", "memberId": fmt.Sprintf("m%03d", i), "teamId": "t1",
			"joinedAt": fmt.Sprintf("2026-01-01T%02d:%02d:00Z", m/60, m%60), "role": "dev",
			"name": fmt.Sprintf("Member %d", i), "score": json.Number(strconv.Itoa(i*10 - 7))}
	}
	var writes []ddbst.Values
	order := make([]int, n) // member i is the (i*37 % n)th of the index
	for i := 0; i < n; i++ {
		writes = append(writes, ddbst.Values{"op": "put", "entity": "Member", "values": member(i)})
		order[(i*37)%n] = i
	}
	writeAll(t, s, writes)

	// two members: the exact BatchGetItem of their full items
	two := ok(t, build(t, s, ddbst.Values{"op": "query", "pattern": "membersOfTeam", "values": ddbst.Values{"teamId": "t1"}, "limit": 2}))
	h, err := s.Hydrate(two, ddbst.HydrateOptions{Attributes: []string{"name"}, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"RequestItems":{"` + name + `":{"Keys":[{"PK":{"S":"ORG#o1"},"SK":{"S":"MEMBER#m000"}},{"PK":{"S":"ORG#o1"},"SK":{"S":"MEMBER#m123"}}],"ConsistentRead":true,"ProjectionExpression":"#p0, #p1, #p2, #p3","ExpressionAttributeNames":{"#p0":"PK","#p1":"SK","#p2":"_type","#p3":"name"}}}}`; len(h.Requests) != 1 || string(h.Requests[0].Body) != want {
		t.Errorf("hydration of two (the keys, the entity attribute and name):\n got %d %s\nwant %s", len(h.Requests), h.Requests[0].Body, want)
	}

	page := ok(t, build(t, s, ddbst.Values{"op": "query", "pattern": "membersOfTeam", "values": ddbst.Values{"teamId": "t1"}, "limit": n}))
	gone := order[5]
	ok(t, build(t, s, ddbst.Values{"op": "delete", "entity": "Member", "values": member(gone)}))
	h, err = s.Hydrate(page, ddbst.HydrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Requests) != 2 {
		t.Fatalf("%d requests for %d keys", len(h.Requests), n)
	}
	var answers []ddbst.HydrateAnswer
	for chunk := range h.Requests {
		for next := &h.Requests[chunk]; next != nil; {
			answer := ok(t, next)
			answers = append(answers, ddbst.HydrateAnswer{Chunk: chunk, Response: answer})
			p, err := s.Page(answer, ddbst.PageOptions{Operation: "BatchGetItem"})
			if err != nil {
				t.Fatal(err)
			}
			next = p.Followup
		}
	}
	h, err = s.Hydrate(page, ddbst.HydrateOptions{Answers: answers})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.Missing) != "[5]" || len(h.Pending) != 0 || len(h.Items) != n || h.Items[5] != nil {
		t.Fatalf("missing %v pending %v, %d items", h.Missing, h.Pending, len(h.Items))
	}
	for k, i := range order {
		if i == gone {
			continue
		}
		if e := h.Items[k]; e.Entity != "Member" || fmt.Sprint(e.Item) != fmt.Sprint(member(i)) {
			t.Errorf("item %d: %+v\nwant %v", k, e, member(i))
		}
	}
}
