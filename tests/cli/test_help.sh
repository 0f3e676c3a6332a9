#!/usr/bin/env bash
# The command helping a newcomer: help for every verb (ddbst help VERB,
# VERB --help) whose example runs; a usage error that prints the verb's
# usage; "did you mean" for verbs, options, entities, attributes, patterns
# and model fields; model errors as FILE:LINE:COLUMN: path: message, one per
# typo; lint as text, JSON and SARIF (golden files beside this script);
# `ddbst schema`. Usage: test_help.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$2
saas=$src/examples/saas/model.json
blog=$src/examples/blog/model.json
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { passed=$((passed + 1)); }
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

# run ARGS...: stdout in $out, stderr in $err, exit code in $rc
run() {
  out=$("$ddbst" "$@" 2>"$tmp/err")
  rc=$?
  err=$(cat "$tmp/err")
}

# expect NAME RC STDOUT_SUBSTRING STDERR_EXACT_OR_EMPTY -- ARGS...
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  run "$@"
  if [[ $rc -ne $want_rc ]]; then
    fail "$name: exit $rc, wanted $want_rc (stderr: $err)"
  elif [[ -n $want_out && $out != *"$want_out"* ]]; then
    fail "$name: stdout lacks '$want_out': $out"
  elif [[ -n $want_err && $err != "$want_err" ]]; then
    fail "$name: stderr"$'\n'"  got:    $err"$'\n'"  wanted: $want_err"
  else
    pass
  fi
}

# The examples run in a copy of what they read, so that those that write a
# file write it there.
mkdir -p "$tmp/tree/tests"
cp -r "$src/examples" "$src/docs" "$tmp/tree/"
cp -r "$src/tests/data" "$src/tests/evolve" "$tmp/tree/tests/"

# ---- help ----
verbs=$("$ddbst" --help | sed -n 's/^       ddbst \([a-z][a-z-]*\).*/\1/p' | grep -vx help | sort -u)
# every verb the command runs (a new verb goes here, and into its file's
# help table)
all="batch-get batch-write check cloudformation create create-table delete
delete-table describe-table diff doc generate get hydrate keys lint migrate page parse
patterns put query scan schema stream transact update update-continuous-backups
update-contributor-insights update-table update-time-to-live view workbench"
if [[ $(echo $verbs) == $(echo $all) ]]; then pass; else fail "overview lists: $(echo $verbs)"; fi
expect overview-version 0 'ddbst --version' '' -- --help
expect overview-help-verb 0 'ddbst help VERB' '' -- help
# every verb the command runs, whether the overview lists it or not (each
# run once: under AddressSanitizer a run costs a tenth of a second)
for verb in $all; do
  run help "$verb"
  [[ $rc -eq 0 && $out == "usage: ddbst $verb"* && $out == *$'\noptions:\n'* &&
     $out == *$'\nexample:\n  $ ddbst '"$verb"* ]] || fail "help $verb: exit $rc: $out"
  help=$out
  # VERB --help and -h are the same text, wherever they stand
  run "$verb" --help
  [[ $rc -eq 0 && $out == "$help" ]] || fail "$verb --help: exit $rc (no help?)"
  run "$verb" "$saas" -h
  [[ $rc -eq 0 && $out == "$help" ]] || fail "$verb MODEL -h: exit $rc"
  # the example runs, from the source tree, and succeeds
  example=$(printf '%s\n' "$help" | sed -n 's/^  \$ ddbst //p')
  (cd "$tmp/tree" && eval "\"\$ddbst\" $example" >"$tmp/example" 2>"$tmp/example.err")
  erc=$?
  # lint exits 1 on an error finding; the examples have none
  [[ $erc -eq 0 ]] || fail "help $verb: the example exits $erc: $(cat "$tmp/example.err")"
  pass
done
expect help-unknown-verb 2 '' "ddbst: help: no verb 'qurey'; did you mean query? (ddbst --help lists them)" -- help qurey

# ---- usage errors: the verb's usage, not every verb's ----
expect usage-check 2 '' $'ddbst: check takes one model file\nusage: ddbst check MODEL\n(ddbst help check: its options and an example)' -- check
expect usage-lint 2 '' $'ddbst: lint takes one model file\nusage: ddbst lint MODEL [--format text|json|sarif] [--since OLD]\n(ddbst help lint: its options and an example)' -- lint "$saas" "$blog"
expect usage-no-verb 2 '' '' --
[[ $err == "usage: ddbst [--table NAME] VERB ARGUMENTS..."* ]] && pass || fail "no verb: $err"

# ---- did you mean ----
expect verb-typo 2 '' $'ddbst: unknown verb \'quer\'; did you mean query?\n(ddbst --help lists the verbs)' -- quer
expect verb-far 2 '' $'ddbst: unknown verb \'frobnicate\'\n(ddbst --help lists the verbs)' -- frobnicate
expect option-typo 2 '' $'ddbst: query: unknown option --limt; did you mean --limit?\nusage: ddbst query MODEL PATTERN NAME=VALUE... [options]\n(ddbst help query: its options and an example)' -- query "$saas" listUsers orgId=1 --limt 3
expect option-typo-item 2 '' $'ddbst: get: unknown option --consistant; did you mean --consistent?\nusage: ddbst get MODEL ENTITY NAME=VALUE... [options]\n(ddbst help get: its options and an example)' -- get "$saas" User orgId=1 userId=2 --consistant
expect option-typo-cf 2 '' $'ddbst: cloudformation: unknown option --yml; did you mean --yaml?\nusage: ddbst cloudformation MODEL [--yaml] [--stream-filter ENTITY[:EVENTS]]...\n(ddbst help cloudformation: its options and an example)' -- cloudformation "$saas" --yml
expect option-missing-value 2 '' $'ddbst: lint: unknown option --formt; did you mean --format?\nusage: ddbst lint MODEL [--format text|json|sarif] [--since OLD]\n(ddbst help lint: its options and an example)' -- lint "$saas" --formt=json
expect entity-typo 2 '' 'ddbst: entity: the model has no entity Usr; did you mean User?' -- keys "$saas" Usr orgId=1
expect attribute-typo 2 '' 'ddbst: values.userID: User has no attribute userID; did you mean userId?' -- keys "$saas" User orgId=1 userID=2
expect pattern-typo 2 '' 'ddbst: pattern: the model has no pattern listUser; did you mean listUsers?' -- query "$saas" listUser orgId=1
expect index-typo 2 '' 'ddbst: index: the table has no index named gsi1; did you mean GSI1?' -- parse "$saas" --index gsi1 'EMAIL#a@b.c'

# ---- model errors: FILE:LINE:COLUMN: path: message, one per typo ----
cat >"$tmp/typo.json" <<'JSON'
{
  "ddbst": 1,
  "table": { "name": "shop-dev", "partitionKey": "PK", "sortKey": "SK" },
  "entities": {
    "Order": {
      "atributes": { "customerId": "string", "orderId": "string" },
      "key": { "pk": "CUSTOMER#{customerId}", "sk": "ORDER#{orderId}" }
    }
  },
  "patterns": { "listOrders": { "query": "Order", "ordr": "desc" } }
}
JSON
expect model-typos 2 '' "$tmp/typo.json:6:7: entities.Order.atributes: unknown field 'atributes'; did you mean attributes?
$tmp/typo.json:10:51: patterns.listOrders.ordr: unknown field 'ordr'; did you mean order?" -- check "$tmp/typo.json"
# other verbs show the first
expect model-typo-first 2 '' "$tmp/typo.json:6:7: entities.Order.atributes: unknown field 'atributes'; did you mean attributes?" -- keys "$tmp/typo.json" Order customerId=1
sed -i 's/atributes/attributes/; s/"ordr"/"order"/; s/{orderId}/{orderID}/' "$tmp/typo.json"
expect model-facet-typo 2 '' "$tmp/typo.json:7:47: entities.Order.key.sk: facet 'orderID' is not an attribute of the entity; did you mean orderId?" -- check "$tmp/typo.json"
printf '{ "ddbst": 1,\n  "table": {"name": "shop-dev",}\n}\n' >"$tmp/syntax.json"
# the column is where the parser stopped: just past the stray '}'
expect model-syntax 2 '' "$tmp/syntax.json:2:33: parse error: invalid object key (must be a string)" -- check "$tmp/syntax.json"
expect values-typo-in-typo-model 2 '' 'ddbst: values.customerID: Order has no attribute customerID; did you mean customerId?' \
  -- keys "$src/docs/examples/orders.json" Order customerID=c1 orderId=o1

# ---- lint formats ----
for example in saas blog; do
  for format in json sarif; do
    (cd "$src" && "$ddbst" lint "examples/$example/model.json" --format "$format") >"$tmp/lint" 2>"$tmp/lint.err"
    rc=$?
    golden=$src/tests/cli/lint-$example.$format
    if [[ $rc -eq 0 ]] && [[ ! -s $tmp/lint.err ]] && cmp -s "$tmp/lint" "$golden"; then
      pass
    else
      fail "lint $example --format $format (exit $rc) differs from $golden:"
      diff <(python3 -m json.tool "$golden") <(python3 -m json.tool "$tmp/lint") | head -20
    fi
  done
done
expect lint-text-is-default 0 'note entities.Project.indexes.GSI2.pk: ' '' -- lint "$saas" --format text
expect lint-bad-format 2 '' 'ddbst: lint: --format xml: expected text, json or sarif' -- lint "$saas" --format xml
# a rule in every format (sort-key-fit: the last one added)
fit=$src/tests/lint/sort-key-fit-identified.json
expect lint-rule-text 1 'error patterns.ordersOfCustomer.range: ordersOfCustomer ranges on placedAt' '' -- lint "$fit"
expect lint-rule-json 1 '"severity":"error","rule":"sort-key-fit","path":"patterns.ordersOfCustomer.range"' '' -- lint "$fit" --format json
expect lint-rule-sarif 1 '"results":[{"ruleId":"sort-key-fit","ruleIndex":0,"level":"error"' '' -- lint "$fit" --format sarif
# an error finding: exit 1 in every format, and SARIF's level says error
run lint "$src/tests/lint/scan.json" --format sarif
[[ $rc -eq 1 && $out == *'"ruleId":"scan","ruleIndex":0,"level":"error"'* ]] && pass || fail "lint sarif error: exit $rc: $out"
run lint "$src/tests/lint/scan.json" --format json
[[ $rc -eq 1 && $out == *'"errors":1}' ]] && pass || fail "lint json error: exit $rc: $out"

# ---- the JSON Schema ----
run schema
if [[ $rc -eq 0 ]] && cmp -s <(printf '%s\n' "$out") "$src/schema/ddbst.schema.json"; then pass; else fail "schema differs from schema/ddbst.schema.json"; fi
expect schema-args 2 '' '' -- schema extra
printf '{"$schema": "../schema/ddbst.schema.json",' >"$tmp/with-schema.json"
tail -c +2 "$saas" >>"$tmp/with-schema.json"
expect model-with-schema 0 '{"ok":true,"table":"saas-api-dev","entities":4,"patterns":7}' '' -- check "$tmp/with-schema.json"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
