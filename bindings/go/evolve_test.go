package ddbst_test

// A migration carried out on DynamoDB Local from Go
// (tests/integration/models/migrate_v1.json to migrate_v2.json, as
// docs/evolution.md walks through it), and time to live turned on and off.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	ddbst "github.com/ddbst/ddbst/bindings/go"
)

// describe is DescribeTable's Table of the session's table.
func describe(t *testing.T, s *ddbst.Session) (table struct {
	GlobalSecondaryIndexes []struct{ IndexName, IndexStatus string }
}) {
	t.Helper()
	var a struct {
		Table *struct {
			GlobalSecondaryIndexes []struct{ IndexName, IndexStatus string }
		}
	}
	answer := ok(t, build(t, s, ddbst.Values{"op": "describeTable"}))
	if json.Unmarshal(answer, &a) != nil || a.Table == nil {
		t.Fatalf("DescribeTable: %s", answer)
	}
	return *a.Table
}

// pass runs step on every page of a consistent Scan of the whole table.
func pass(t *testing.T, s *ddbst.Session, step func(answer []byte)) {
	t.Helper()
	opts := ddbst.ScanOptions{Consistent: true, Limit: 3}
	for {
		answer := ok(t, mustScan(t, s, opts))
		step(answer)
		p, err := s.ScanPage(answer, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !p.HasMore {
			return
		}
		opts.Cursor = p.Cursor
	}
}

func get(t *testing.T, s *ddbst.Session, entity string, values ddbst.Values) ddbst.Values {
	t.Helper()
	p, err := s.Page(ok(t, build(t, s, ddbst.Values{"op": "get", "entity": entity, "values": values, "consistent": true})),
		ddbst.PageOptions{Operation: "GetItem"})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("get %s %v: %v %+v", entity, values, err, p)
	}
	return p.Items[0].Item
}

func TestMigrationOnDynamoDBLocal(t *testing.T) {
	v1, name := table(t, "tests/integration/models/migrate_v1.json", "migrate")
	oldFile := filepath.Join(root, "tests/integration/models/migrate_v1.json")
	v2, err := ddbst.Open(ddbst.Config{ModelFile: filepath.Join(root, "tests/integration/models/migrate_v2.json"),
		Table: name, CursorKeys: cursorKeys})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	ok(t, build(t, v1, ddbst.Values{"op": "create", "entity": "Customer", "values": ddbst.Values{
		"customerId": "c1", "email": "Ann@X.com", "name": "Ann", "tier": "pro"}}))
	ok(t, build(t, v1, ddbst.Values{"op": "create", "entity": "Customer", "values": ddbst.Values{
		"customerId": "c2", "email": "bob@x.com", "tier": "free"}}))
	ok(t, build(t, v1, ddbst.Values{"op": "put", "entity": "Order", "values": ddbst.Values{
		"customerId": "c1", "orderId": "o1", "placedAt": "2026-02-01T00:00:00Z", "status": "open", "total": json.Number("12.50")}}))
	m := ddbst.Migration{Old: ddbst.Old{File: oldFile, Table: name}}

	d, err := v2.Diff(m.Old, ddbst.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var changes []string
	for _, c := range d.Changes {
		changes = append(changes, c.Class+" "+c.What)
	}
	if want := "free description|backfill table.indexes.GSI2|cleanup table.indexes.GSI1|" +
		"backfill entities.Customer.attributes.region|rewrite entities.Customer.key.sk|" +
		"rewrite entities.Order.attributes.placedAt.precision|rewrite entities.Order.key.sk|" +
		"backfill patterns.proCustomers|free patterns.ordersByStatus"; d.Worst != "rewrite" || d.Table != name ||
		strings.Join(changes, "|") != want {
		t.Errorf("diff: %s %s %s\nwant %s", d.Table, d.Worst, strings.Join(changes, "|"), want)
	}
	if text, worst, err := v2.DiffText(m.Old, ddbst.DiffOptions{}); err != nil || worst != "rewrite" ||
		!strings.Contains(text, "entities.Customer.key.sk") {
		t.Errorf("diff text: %v %s %q", err, worst, text)
	}

	plan, err := v2.MigratePlan(m)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, s := range plan.Steps {
		steps = append(steps, s.Step+" "+s.Index)
	}
	if got := strings.Join(steps, "|"); got != "addIndex GSI2|scan |verify |removeIndex GSI1" || len(plan.Notes) != 0 {
		t.Fatalf("plan: %s, notes %v", got, plan.Notes)
	}
	add := plan.Steps[0].Request
	if want := `{"TableName":"` + name + `","AttributeDefinitions":[{"AttributeName":"GSI2PK","AttributeType":"S"},{"AttributeName":"GSI2SK","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"GSI2","KeySchema":[{"AttributeName":"GSI2PK","KeyType":"HASH"},{"AttributeName":"GSI2SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}}]}`; add.Target != "DynamoDB_20120810.UpdateTable" || string(add.Body) != want {
		t.Errorf("addIndex: %s %s\nwant %s", add.Target, add.Body, want)
	}
	ok(t, add)
	for i := 0; ; i++ {
		indexes := describe(t, v2).GlobalSecondaryIndexes
		if len(indexes) == 2 && indexes[0].IndexStatus == "ACTIVE" && indexes[1].IndexStatus == "ACTIVE" {
			break
		}
		if i == 100 {
			t.Fatalf("GSI2 never became ACTIVE: %+v", indexes)
		}
	}

	// a service's create during the migration, by the writer protocol
	w, err := v2.MigrateWrite(m, "create", "Customer", ddbst.Values{"customerId": "c3", "email": "cat@x.com", "tier": "pro", "name": "Cat"}, 0)
	if err != nil || !w.Moves || w.Operation != "TransactWriteItems" {
		t.Fatalf("migrateWrite: %v %+v", err, w)
	}
	ok(t, &w.Request)

	outcomes := map[string]int{}
	pass(t, v2, func(answer []byte) {
		st, err := v2.MigrateStep(m, answer)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range st.Items {
			outcomes[it.Outcome]++
			if it.Outcome == "write" {
				ok(t, &it.Request)
			}
		}
	})
	// c1, c2 and o1 move; c3 was written in the new shape; 3 guards
	if outcomes["write"] != 3 || outcomes["refused"] != 0 || outcomes["foreign"] != 0 || outcomes["guard"] < 3 {
		t.Errorf("the pass: %v", outcomes)
	}
	again := map[string]int{}
	pass(t, v2, func(answer []byte) {
		st, err := v2.MigrateStep(m, answer)
		if err != nil {
			t.Fatal(err)
		}
		again["write"] += st.Writes
		again["skip"] += st.Skipped
		again["guard"] += st.Guards
	})
	if fmt.Sprint(again) != "map[guard:3 skip:4 write:0]" {
		t.Errorf("the pass again: %v", again)
	}
	pass(t, v2, func(answer []byte) {
		problems, err := v2.MigrateVerify(m, answer)
		if err != nil || len(problems) != 0 {
			t.Errorf("verify: %v %+v", err, problems)
		}
	})
	remove := plan.Steps[3].Request
	if want := `{"TableName":"` + name + `","GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"GSI1"}}]}`; string(remove.Body) != want {
		t.Errorf("removeIndex: %s", remove.Body)
	}
	ok(t, remove)
	for i := 0; ; i++ { // DELETING, then gone
		indexes := describe(t, v2).GlobalSecondaryIndexes
		if len(indexes) == 1 && indexes[0].IndexName == "GSI2" {
			break
		}
		if i == 100 {
			t.Fatalf("indexes after the migration: %+v", indexes)
		}
	}

	// read back in the new model
	if want := "[CUST#c1 ORDER#2026-02-01T00:00:00.000Z#o1 CUST#c1 PROFILE#c1 CUST#c2 PROFILE#c2 CUST#c3 PROFILE#c3 " +
		"EMAIL#ann@x.com EMAIL#ann@x.com EMAIL#bob@x.com EMAIL#bob@x.com EMAIL#cat@x.com EMAIL#cat@x.com]"; fmt.Sprint(strings.Split(sorted(scanKeys(t, name)), "\n")) != want {
		t.Errorf("the table after the migration: %v", scanKeys(t, name))
	}
	if got := fmt.Sprint(get(t, v2, "Customer", ddbst.Values{"customerId": "c1"})); got != "map[customerId:c1 email:Ann@X.com name:Ann region:eu tier:pro]" {
		t.Errorf("c1: %s", got)
	}
	if got := fmt.Sprint(get(t, v2, "Order", ddbst.Values{"customerId": "c1", "orderId": "o1", "placedAt": "2026-02-01T00:00:00.000Z"})); got != "map[customerId:c1 orderId:o1 placedAt:2026-02-01T00:00:00.000Z status:open total:12.5 version:1]" {
		t.Errorf("o1: %s", got)
	}
	p, err := v2.Page(ok(t, build(t, v2, ddbst.Values{"op": "query", "pattern": "proCustomers", "values": ddbst.Values{"tier": "pro"}})),
		ddbst.PageOptions{})
	if err != nil || len(p.Items) != 2 || p.Items[0].Item["customerId"] != "c1" || p.Items[1].Item["customerId"] != "c3" {
		t.Errorf("proCustomers: %v %+v", err, p)
	}
}

// Time to live on the model's ttlAttribute, and off again from a model
// that no longer declares it, read back with DescribeTimeToLive.
func TestTimeToLiveOnDynamoDBLocal(t *testing.T) {
	saas, name := table(t, "examples/saas/model.json", "ttl")
	shop, err := ddbst.Open(ddbst.Config{ModelFile: filepath.Join(root, "examples/shop/model.json"), Table: name})
	if err != nil {
		t.Fatal(err)
	}
	defer shop.Close()
	ttl := func() string {
		status, answer := send(t, "DynamoDB_20120810.DescribeTimeToLive", []byte(`{"TableName":"`+name+`"}`))
		var a struct {
			TimeToLiveDescription struct{ TimeToLiveStatus, AttributeName string }
		}
		if status != 200 || json.Unmarshal(answer, &a) != nil {
			t.Fatalf("DescribeTimeToLive: %s", answer)
		}
		return strings.TrimSpace(a.TimeToLiveDescription.TimeToLiveStatus + " " + a.TimeToLiveDescription.AttributeName)
	}
	on, err := saas.UpdateTimeToLive("")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"TableName":"` + name + `","TimeToLiveSpecification":{"AttributeName":"expiresAt","Enabled":true}}`; on.Target != "DynamoDB_20120810.UpdateTimeToLive" || string(on.Body) != want {
		t.Errorf("on: %s %s", on.Target, on.Body)
	}
	ok(t, on)
	if got := ttl(); got != "ENABLED expiresAt" {
		t.Errorf("after enabling: %s", got)
	}
	var e *ddbst.Error
	if _, err := saas.UpdateTimeToLive("expiresAt"); !asError(err, &e) || e.Path != "disable" {
		t.Errorf("disabling what the model declares: %v", err)
	}
	off, err := shop.UpdateTimeToLive("expiresAt")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"TableName":"` + name + `","TimeToLiveSpecification":{"AttributeName":"expiresAt","Enabled":false}}`; string(off.Body) != want {
		t.Errorf("off: %s", off.Body)
	}
	ok(t, off)
	if got := ttl(); got != "DISABLED" {
		t.Errorf("after disabling: %s", got)
	}
}
