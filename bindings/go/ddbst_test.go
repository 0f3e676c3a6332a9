package ddbst_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	ddbst "github.com/ddbst/ddbst/bindings/go"
)

// The tree's root: bindings/go is two levels down.
var root = filepath.Join("..", "..")

const cursorKeys = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

func open(t *testing.T, model string) *ddbst.Session {
	t.Helper()
	s, err := ddbst.Open(ddbst.Config{
		ModelFile:  filepath.Join(root, "examples", model, "model.json"),
		CursorKeys: cursorKeys,
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func response(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "tests", "data", "responses", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The bodies of docs/ffi.md's worked examples, byte for byte.
func TestBodiesExactly(t *testing.T) {
	s := open(t, "saas")
	cases := []struct {
		request ddbst.Values
		target  string
		body    string
	}{
		{ddbst.Values{"op": "create", "entity": "Project", "values": ddbst.Values{
			"orgId": "123", "projectId": "p1", "name": "Website", "status": "active"},
			"now": 1773478800000000},
			"DynamoDB_20120810.PutItem",
			`{"TableName":"saas-api-dev","Item":{"PK":{"S":"ORG#123"},"SK":{"S":"PROJECT#2026-03-14T09:00:00Z#p1"},"GSI2PK":{"S":"STATUS#active"},"GSI2SK":{"S":"2026-03-14T09:00:00Z"},"_type":{"S":"Project"},"orgId":{"S":"123"},"projectId":{"S":"p1"},"createdAt":{"S":"2026-03-14T09:00:00Z"},"name":{"S":"Website"},"status":{"S":"active"}},"ConditionExpression":"attribute_not_exists(#n0)","ExpressionAttributeNames":{"#n0":"PK"}}`},
		{ddbst.Values{"op": "update", "entity": "Project", "values": ddbst.Values{
			"orgId": "123", "projectId": "p1", "createdAt": "2026-03-14T09:00:00Z"},
			"set": ddbst.Values{"status": "archived"}, "now": 1773478800000000},
			"DynamoDB_20120810.UpdateItem",
			`{"TableName":"saas-api-dev","Key":{"PK":{"S":"ORG#123"},"SK":{"S":"PROJECT#2026-03-14T09:00:00Z#p1"}},"UpdateExpression":"SET #n0 = :v0, #n1 = :v1, #n2 = :v2","ConditionExpression":"attribute_exists(#n3)","ExpressionAttributeNames":{"#n0":"status","#n1":"GSI2PK","#n2":"GSI2SK","#n3":"PK"},"ExpressionAttributeValues":{":v0":{"S":"archived"},":v1":{"S":"STATUS#archived"},":v2":{"S":"2026-03-14T09:00:00Z"}}}`},
		{ddbst.Values{"op": "query", "pattern": "listProjects", "values": ddbst.Values{"orgId": "123"},
			"condition": ddbst.Values{"createdAt": ddbst.Values{"gte": "2026-03"}}, "limit": 10},
			"DynamoDB_20120810.Query",
			`{"TableName":"saas-api-dev","KeyConditionExpression":"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK"},"ExpressionAttributeValues":{":v0":{"S":"ORG#123"},":v1":{"S":"PROJECT#2026-03"},":v2":{"S":"PROJECT$"}},"ScanIndexForward":false,"Limit":10}`},
	}
	for _, c := range cases {
		r, err := s.Build(c.request)
		if err != nil {
			t.Fatalf("%v: %v", c.request["op"], err)
		}
		if r.Target != c.target || string(r.Body) != c.body {
			t.Errorf("%v:\n got %s %s\nwant %s %s", c.request["op"], r.Target, r.Body, c.target, c.body)
		}
	}
}

// A page DynamoDB Local answered (tests/data/responses), read back; its
// sealed cursor starts the next query exactly after the page's last key.
func TestPageOfDynamoDBLocalsAnswer(t *testing.T) {
	s := open(t, "saas")
	values := ddbst.Values{"orgId": "1"}
	p, err := s.Page(response(t, "local-query-users-page1.json"), ddbst.PageOptions{Pattern: "listUsers", Values: values})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(p.Items)
	want := `[{"entity":"User","item":{"email":"Ann@X.com","name":"Ann","orgId":"1","role":"admin","userId":"2"}}]`
	if string(got) != want || p.Count != 1 || !p.HasMore || p.Cursor == "" {
		t.Fatalf("page: %s count %d hasMore %v cursor %q", got, p.Count, p.HasMore, p.Cursor)
	}
	next, err := s.Build(ddbst.Values{"op": "query", "pattern": "listUsers", "values": values, "cursor": p.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(next.Body), `"ExclusiveStartKey":{"PK":{"S":"ORG#1"},"SK":{"S":"USER#2"}}`) {
		t.Errorf("next page: %s", next.Body)
	}
	// the cursor, given for another tenant, is refused
	_, err = s.Build(ddbst.Values{"op": "query", "pattern": "listUsers", "values": ddbst.Values{"orgId": "2"}, "cursor": p.Cursor})
	var e *ddbst.Error
	if !errors.As(err, &e) || e.Name != "ECURSOR" || e.Path != "cursor" {
		t.Errorf("another tenant's cursor: %v", err)
	}
}

// DynamoDB Local's cancellation of a create whose email was taken, in the
// model's words.
func TestExplainARefusedCreate(t *testing.T) {
	s := open(t, "saas")
	request := ddbst.Values{"op": "create", "entity": "User", "values": ddbst.Values{
		"orgId": "1", "userId": "3", "email": "ann@x.com", "role": "admin", "name": "Ann"}}
	why, err := s.Explain(request, response(t, "local-error-cancel-unique.json"))
	if err != nil {
		t.Fatal(err)
	}
	if why.Kind != "unique" || why.DynamoDB.Kind != "TransactionCanceled" ||
		why.Explanation != "TransactItems[1]: unique constraint User.email: another User already has this email (EMAIL#ann@x.com)\n" {
		t.Errorf("explain: %+v", why)
	}
	// and the same answer given to Page is an error carrying it
	_, err = s.Page(response(t, "local-error-cancel-unique.json"), ddbst.PageOptions{Operation: "GetItem"})
	var e *ddbst.Error
	if !errors.As(err, &e) || e.Name != "EDYNAMODB" || e.DynamoDB == nil || e.DynamoDB.Type != "TransactionCanceledException" {
		t.Errorf("page of an error: %#v", err)
	}
}

// Errors are typed: code, name, path, message.
func TestTypedErrors(t *testing.T) {
	s := open(t, "saas")
	_, err := s.Build(ddbst.Values{"op": "get", "entity": "User", "values": ddbst.Values{"orgId": "1#USER#admin", "userId": "9"}})
	var e *ddbst.Error
	if !errors.As(err, &e) || e.Code != -5 || e.Name != "EVALUE" || e.Path != "facet orgId" ||
		e.Message != "User.orgId contains the key delimiter '#', which would forge another key" {
		t.Fatalf("forged facet: %#v", err)
	}
	_, err = ddbst.Open(ddbst.Config{Model: `{"ddbst":1,"table":{"name":"t"}}`})
	if !errors.As(err, &e) || e.Name != "EMODEL" || len(e.Errors) == 0 {
		t.Fatalf("bad model: %#v", err)
	}
}

// Binary and big numbers, in and out exactly: []byte goes in as base64,
// numbers come out as json.Number with every digit.
func TestExactValues(t *testing.T) {
	s := open(t, "shop")
	receipt := []byte{0x89, 'P', 'N', 'G', 0, 0xff, 0xfe}
	r, err := s.Build(ddbst.Values{"op": "put", "entity": "Order", "now": 1773478800000000, "values": ddbst.Values{
		"customerId": "c1", "orderId": "01KKNS5TM0JB3X7N5WJJTB8P91", "status": "open",
		"total": json.Number("12345678901234567890.123456789"), "quantity": json.Number("9223372036854775807"),
		"receipt": receipt}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"total":{"N":"12345678901234567890.123456789"}`,
		`"quantity":{"N":"9223372036854775807"}`, `"receipt":{"B":"iVBORwD//g=="}`} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("body lacks %s: %s", want, r.Body)
		}
	}
	if r.Item["total"] != json.Number("12345678901234567890.123456789") {
		t.Errorf("item total: %#v", r.Item["total"])
	}
	// as DynamoDB answers a GetItem of it
	answer := `{"Item":{"PK":{"S":"CUSTOMER#c1"},"SK":{"S":"ORDER#2026-03-14T09:00:00.000Z#01KKNS5TM0JB3X7N5WJJTB8P91"},` +
		`"_type":{"S":"Order"},"total":{"N":"12345678901234567890.123456789"},"quantity":{"N":"-9223372036854775808"},` +
		`"receipt":{"B":"iVBORwD//g=="},"weights":{"NS":["1E+100","0.000000000000000000000000000000000000000001"]}}}`
	p, err := s.Page([]byte(answer), ddbst.PageOptions{Operation: "GetItem"})
	if err != nil {
		t.Fatal(err)
	}
	item := p.Items[0].Item
	bin, _ := base64.StdEncoding.DecodeString(item["receipt"].(string))
	if item["total"] != json.Number("12345678901234567890.123456789") ||
		item["quantity"] != json.Number("-9223372036854775808") || string(bin) != string(receipt) {
		t.Errorf("read back: %#v", item)
	}
	weights, _ := json.Marshal(item["weights"])
	if string(weights) != `[1E+100,0.000000000000000000000000000000000000000001]` {
		t.Errorf("weights: %s", weights)
	}
}

// One session, many goroutines.
func TestConcurrentCalls(t *testing.T) {
	s := open(t, "saas")
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				var a struct {
					Keys map[string]string `json:"keys"`
				}
				id := strings.Repeat("x", g+1)
				if err := s.Call(ddbst.Values{"op": "keys", "entity": "User", "values": ddbst.Values{
					"orgId": id, "userId": "u", "email": "A@B.c"}}, &a); err != nil {
					errs <- err
					return
				}
				if a.Keys["PK"] != "ORG#"+id || a.Keys["GSI1PK"] != "EMAIL#a@b.c" {
					errs <- errors.New("wrong keys: " + a.Keys["PK"])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s.Close()
	if _, err := s.CallText([]byte(`{"op":"version"}`)); err != ddbst.ErrClosed {
		t.Errorf("after Close: %v", err)
	}
}

func TestVersion(t *testing.T) {
	if ddbst.Version() == "" {
		t.Fatal("no version")
	}
}
