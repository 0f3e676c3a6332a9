#!/usr/bin/env bash
# `ddbst migrate plan|step|verify` as a user runs it: exact output and exit
# codes on the tests/evolve pairs and a Scan answer of their table
# (tests/evolve/pages/blog-scan.json). Usage: test_migrate.sh DDBST SRC
set -u
ddbst=$1
e=$2/tests/evolve
page=$e/pages/blog-scan.json
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME EXIT_CODE EXPECTED_STDOUT EXPECTED_STDERR_SUBSTRING -- ARGS...
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  local out err rc
  out=$("$ddbst" "$@" 2>"$tmp/err")
  rc=$?
  err=$(cat "$tmp/err")
  if [[ $rc -ne $want_rc ]]; then
    echo "FAIL $name: exit $rc, wanted $want_rc (stderr: $err)"
    failed=$((failed + 1))
  elif [[ $out != "$want_out" ]]; then
    echo "FAIL $name: stdout"
    echo "  got:    $out"
    echo "  wanted: $want_out"
    failed=$((failed + 1))
  elif [[ -n $want_err && $err != *"$want_err"* ]]; then
    echo "FAIL $name: stderr '$err' lacks '$want_err'"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

expect plan-text 0 '1. scan the table (parallel segments, consistent reads); send the writes ddbst_migration_next gives for every page (the writer protocol in force)
     cleanup table.indexes.GSI1
     cleanup entities.Post.attributes.views
2. scan the table again: ddbst_migration_verify finds no problem
3. UpdateTable: delete index GSI1' '' -- migrate plan "$e/cleanup.old.json" "$e/cleanup.new.json"
expect plan-none 0 'nothing to migrate: every change is free (free)' '' \
  -- migrate plan "$e/free.old.json" "$e/free.new.json"
expect plan-impossible 2 '' 'ddbst: table.localIndexes.LSI1: impossible in place: a new local index LSI1' \
  -- migrate plan "$e/impossible-lsi.old.json" "$e/impossible-lsi.new.json"
expect plan-unsafe 2 '' 'unsafe (accept it with --unsafe, "unsafe": true or DDBST_MIGRATE_UNSAFE); check first: no two items of Author already stored share EMAIL#{email:lower}' \
  -- migrate plan "$e/unsafe.old.json" "$e/unsafe.new.json"

# the backfill of a new index and a default: one update for Ann, nothing
# for Bob (no email, a role), the post untouched, the legacy item reported
expect step-backfill 0 '{"operation":"UpdateItem","body":{"TableName":"blog-dev","Key":{"PK":{"S":"AUTHOR#a1"},"SK":{"S":"AUTHOR#a1"}},"UpdateExpression":"SET #n0 = :v0, #n1 = :v1","ConditionExpression":"attribute_exists(#n2) AND #n3 = :v2 AND #n4 = :v3 AND #n5 = :v4 AND #n6 = :v5 AND attribute_not_exists(#n0) AND attribute_not_exists(#n1)","ExpressionAttributeNames":{"#n0":"GSI2PK","#n1":"role","#n2":"PK","#n3":"_type","#n4":"authorId","#n5":"email","#n6":"name"},"ExpressionAttributeValues":{":v0":{"S":"EMAIL#ann@x.com"},":v1":{"S":"writer"},":v2":{"S":"Author"},":v3":{"S":"a1"},":v4":{"S":"ann@x.com"},":v5":{"S":"Ann"}}}}
{"foreign":{"key":{"PK":"LEGACY#9","SK":"X"},"entity":null,"reason":"its entity attribute names Invoice, an entity of neither model"}}' '' \
  -- migrate step "$e/backfill-index.old.json" "$e/backfill-index.new.json" "$page"

expect verify-cleanup 1 '{"key":{"PK":"AUTHOR#a1","SK":"POST#2026-01-02T03:04:05Z#p1"},"entity":"Post","problem":"views is stale: the new model does not write it on this item"}
{"key":{"PK":"AUTHOR#a1","SK":"POST#2026-01-02T03:04:05Z#p1"},"entity":"Post","problem":"GSI1PK is stale: the new model does not write it on this item"}
{"key":{"PK":"AUTHOR#a1","SK":"POST#2026-01-02T03:04:05Z#p1"},"entity":"Post","problem":"GSI1SK is stale: the new model does not write it on this item"}
{"key":{"PK":"LEGACY#9","SK":"X"},"entity":null,"problem":"its entity attribute names Invoice, an entity of neither model"}' '' \
  -- migrate verify "$e/cleanup.old.json" "$e/cleanup.new.json" "$page"

# the page once migrated: nothing to write, nothing to report
cat >"$tmp/migrated.json" <<'JSON'
{"Items":[{"PK":{"S":"AUTHOR#a1"},"SK":{"S":"POST#2026-01-02T03:04:05Z#p1"},"_type":{"S":"Post"},"authorId":{"S":"a1"},"postId":{"S":"p1"},"publishedAt":{"S":"2026-01-02T03:04:05Z"},"status":{"S":"published"},"title":{"S":"Hi"}}],"Count":1,"ScannedCount":1}
JSON
expect verify-clean 0 '' '' -- migrate verify "$e/cleanup.old.json" "$e/cleanup.new.json" "$tmp/migrated.json"
expect step-clean 0 '' '' -- migrate step "$e/cleanup.old.json" "$e/cleanup.new.json" "$tmp/migrated.json"

# hostile: two tables, a page that is no JSON, a missing page, bad usage
expect two-tables 2 '' 'ddbst: table.name: the models are of different tables (blog-dev and saas-api-dev)' \
  -- migrate step "$e/cleanup.old.json" "$2/examples/saas/model.json" "$page"
printf '{"Items":' >"$tmp/bad.json"
expect bad-page 2 '' 'ddbst: response: parse error: premature EOF' \
  -- migrate step "$e/cleanup.old.json" "$e/cleanup.new.json" "$tmp/bad.json"
printf '{"Items":[{"PK":{"N":"1"}}]}' >"$tmp/odd.json"
expect odd-page 0 '{"foreign":{"key":{"PK":1},"entity":null,"reason":"the item lacks the table'"'"'s key attributes: read it whole"}}' '' \
  -- migrate step "$e/cleanup.old.json" "$e/cleanup.new.json" "$tmp/odd.json"
expect no-page 2 '' 'ddbst: ' -- migrate verify "$e/cleanup.old.json" "$e/cleanup.new.json" "$tmp/nope.json"
expect no-sub 2 '' 'migrate takes plan, step or verify' -- migrate frob a b
expect few-files 2 '' 'migrate step and verify take OLD NEW PAGE.json' -- migrate step a b
expect bad-option 2 '' "unknown option" -- migrate plan a b --nope

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
