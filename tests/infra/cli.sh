#!/usr/bin/env bash
# The verbs cloudformation, lint and doc as a user runs them: output forms,
# exit codes and messages. (Each lint rule: tests/lint/run.sh; the docs:
# tests/doc/drift.sh.) Usage: cli.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
saas=$src/examples/saas/model.json
blog=$src/examples/blog/model.json
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME EXIT_CODE STDOUT_SUBSTRING STDERR_SUBSTRING -- ARGS...
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  "$ddbst" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne $want_rc ]]; then
    echo "FAIL $name: exit $rc, wanted $want_rc (stderr: $(cat "$tmp/err"))"
    failed=$((failed + 1))
  elif [[ -n $want_out ]] && ! grep -qF -- "$want_out" "$tmp/out"; then
    echo "FAIL $name: stdout lacks '$want_out':"
    sed 's/^/  /' "$tmp/out" | head -20
    failed=$((failed + 1))
  elif [[ -n $want_err ]] && ! grep -qF -- "$want_err" "$tmp/err"; then
    echo "FAIL $name: stderr '$(cat "$tmp/err")' lacks '$want_err'"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

# JSON, indented, that JSON.parse reads back to the same template.
expect cf-json 0 '    "AppTable": {' '' -- cloudformation "$saas"
if command -v node >/dev/null 2>&1; then
  if "$ddbst" cloudformation "$saas" --stream-filter Project:INSERT,MODIFY |
    node -e '
      const t = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const p = t.Resources.AppTable.Properties;
      const f = t.Metadata.ddbst.filterPatterns[0];
      const ok = t.Parameters.TableName.Default === "saas-api-dev" &&
        p.TableName["Fn::If"][2].Ref === "TableName" &&
        t.Outputs.StreamArn.Value["Fn::GetAtt"].join() === "AppTable,StreamArn" &&
        p.KeySchema.map(k => k.AttributeName).join() === "PK,SK" &&
        f.dynamodb.Keys.SK.S[0].prefix === "PROJECT#" &&
        f.eventName.join() === "INSERT,MODIFY";
      process.exit(ok ? 0 : 1);'; then
    passed=$((passed + 1))
  else
    echo "FAIL cf-json-node: node did not read the template back"
    failed=$((failed + 1))
  fi
fi
expect cf-yaml 0 '        - {AttributeName: GSI2PK, KeyType: HASH}' '' \
  -- cloudformation "$saas" --yaml
expect cf-yaml-first-line 0 'Resources:' '' -- cloudformation --yaml "$saas"
[[ $(head -1 "$tmp/out") == "Resources:" ]] && passed=$((passed + 1)) ||
  { echo "FAIL cf-yaml-first-line: $(head -1 "$tmp/out")"; failed=$((failed + 1)); }
expect cf-filter-equals 0 '"prefix": "USER#"' '' \
  -- cloudformation "$saas" --stream-filter=User
expect cf-table-override 0 '"Default": "saas-api-prod"' '' \
  -- --table saas-api-prod cloudformation "$saas"
expect cf-unknown-entity 2 '' "ddbst: streamFilters[0]: 'Nope' is not an entity" \
  -- cloudformation "$saas" --stream-filter Nope
expect cf-bad-event 2 '' "'UPSERT' is not a stream event name" \
  -- cloudformation "$saas" --stream-filter Project:UPSERT
expect cf-no-stream 2 '' 'ddbst: table.stream: stream filters need a stream' \
  -- cloudformation "$blog" --stream-filter Blog
expect cf-no-model 2 '' 'cloudformation takes a model file' -- cloudformation --yaml
expect cf-two-models 2 '' 'cloudformation takes one model file' \
  -- cloudformation "$saas" "$blog"
expect cf-unknown-option 2 '' 'cloudformation: unknown option' \
  -- cloudformation "$saas" --yml
expect cf-missing-file 2 '' 'ddbst: ' -- cloudformation "$tmp/nope.json"

expect lint-saas 0 'note entities.Project.indexes.GSI2.pk: ' '' -- lint "$saas"
expect lint-error-exit 1 'error patterns.allProducts.scan: ' '' \
  -- lint "$src/tests/lint/scan.json"
expect lint-usage 2 '' 'lint takes one model file' -- lint
printf '{ "ddbst": 1, "table": { "name": "t1x", "partitionKey": "PK", "sortkey": "x" } }' >"$tmp/bad.json"
expect lint-bad-model 2 '' "$tmp/bad.json:1:63: table.sortkey: unknown field 'sortkey'; did you mean sortKey?" -- lint "$tmp/bad.json"

expect doc-saas 0 '| 5 | listProjects | Query Project | table | PK = `ORG#<orgId>` AND begins_with(SK, `PROJECT#`) | desc | 25 (max 100) |' '' \
  -- doc "$saas"
expect doc-usage 2 '' 'doc takes one model file' -- doc "$saas" extra
expect usage-lists-verbs 0 'ddbst cloudformation MODEL [--yaml]' '' -- --help

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
