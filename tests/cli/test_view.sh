#!/usr/bin/env bash
# `ddbst view` as a user runs it: one self-contained page (no address it
# would fetch), the same bytes for the same seed, the data as
# BatchWriteItem lines, a description that cannot end the page's script,
# and its usage errors. tests/view/view.test.js opens the page in a real
# browser against DynamoDB Local. Usage: test_view.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
saas=$src/examples/saas/model.json
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { passed=$((passed + 1)); }
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

"$ddbst" view "$saas" -o "$tmp/a.html" && pass || fail "view -o"
"$ddbst" view "$saas" >"$tmp/b.html" && pass || fail "view to stdout"
cmp -s "$tmp/a.html" "$tmp/b.html" && pass || fail "the same seed gives other bytes"
"$ddbst" view "$saas" --seed 7 -o "$tmp/c.html" && ! cmp -s "$tmp/a.html" "$tmp/c.html" && pass ||
  fail "another seed gives the same page"
# self-contained: no src= or href= to anywhere, no url() in the style
if grep -Eqi '(src|href)="(https?:)?//|url\(|@import' "$tmp/a.html"; then
  fail "the page refers to something outside it: $(grep -Eoi '(src|href)="[^"]*"|url\([^)]*\)' "$tmp/a.html" | head -3)"
else
  pass
fi
[[ $(grep -c '<script' "$tmp/a.html") -eq 2 ]] && pass || fail "the page has other scripts"
# --json is the data the page holds
"$ddbst" view "$saas" --json >"$tmp/view.json" || fail "view --json"
python3 - "$tmp/view.json" "$tmp/a.html" <<'PY' && pass || fail "--json differs from the page's data"
import json, re, sys
data = json.load(open(sys.argv[1]))
page = open(sys.argv[2], encoding="utf-8").read()
inner = re.search(r'<script type="application/json" id="ddbst-view">(.*?)</script>', page, re.S).group(1)
assert json.loads(inner) == data, "the page's data and --json differ"
assert [p["name"] for p in data["patterns"]] == ["getOrganisation", "getUser", "listUsers", "userByEmail", "listProjects", "listEvents", "projectsByStatus"]
PY
# --data: BatchWriteItem bodies, at most 25 puts each, every item once
"$ddbst" view "$saas" --data >"$tmp/data" || fail "view --data"
python3 - "$tmp/data" "$tmp/view.json" <<'PY' && pass || fail "--data"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
view = json.load(open(sys.argv[2]))
puts = []
for line in lines:
    body = json.loads(line)
    assert list(body) == ["RequestItems"] and list(body["RequestItems"]) == ["saas-api-dev"], body.keys()
    writes = body["RequestItems"]["saas-api-dev"]
    assert 1 <= len(writes) <= 25
    puts += [w["PutRequest"]["Item"] for w in writes]
assert puts == [i["item"] for i in view["items"]], "the data and the view's items differ"
PY
"$ddbst" --table view-stage view "$saas" --data | head -1 | grep -q '^{"RequestItems":{"view-stage":\[' && pass ||
  fail "--table is the data's table"

# a description that tries to end the script and run its own
cat >"$tmp/evil.json" <<'JSON'
{ "ddbst": 1, "description": "</script><script>alert(1)</script><!--",
  "table": { "name": "evil-table", "partitionKey": "PK", "sortKey": "SK" },
  "entities": { "A": { "attributes": { "id": "string" }, "key": { "pk": "A#{id}", "sk": "A" } } },
  "patterns": { "getA": { "get": "A" } } }
JSON
"$ddbst" view "$tmp/evil.json" -o "$tmp/evil.html" || fail "view of the evil model"
if grep -q 'alert(1)</script>' "$tmp/evil.html" || grep -q '<!--"' "$tmp/evil.html"; then
  fail "a description ended the page's script"
else
  pass
fi
grep -q '\\u003c/script>\\u003cscript>alert(1)' "$tmp/evil.html" && pass || fail "the description is not in the data"

# usage
out=$("$ddbst" view 2>&1); [[ $? -eq 2 && $out == *'view takes a model file'* ]] && pass || fail "view with no model: $out"
out=$("$ddbst" view "$saas" --seed x 2>&1); [[ $? -eq 2 && $out == *"--seed: expected a whole number"* ]] && pass || fail "--seed x: $out"
out=$("$ddbst" view "$saas" --data --json 2>&1); [[ $? -eq 2 && $out == *'give --data or --json, not both'* ]] && pass || fail "--data --json: $out"
out=$("$ddbst" view "$saas" --dat 2>&1); [[ $? -eq 2 && $out == *'unknown option --dat; did you mean --data?'* ]] && pass || fail "--dat: $out"
out=$("$ddbst" view "$saas" -o "$tmp/no/such/dir/x.html" 2>&1); [[ $? -eq 2 && $out == *'cannot write the file'* ]] && pass || fail "-o bad: $out"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
