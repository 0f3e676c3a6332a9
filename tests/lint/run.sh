#!/usr/bin/env bash
# `ddbst lint` on one small bad model per rule (tests/lint/*.json) and on the
# example models: the output must equal the .expected file beside it, each bad
# model must produce exactly one finding, and the exit code must be 1 exactly when a
# finding is an error. Usage: run.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME MODEL EXPECTED_FILE
check() {
  local name=$1 model=$2 expected=$3 rc want_rc=0
  "$ddbst" lint "$model" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  grep -q '^error ' "$expected" && want_rc=1
  if [[ ! -s $tmp/err ]] && [[ $rc -eq $want_rc ]] && cmp -s "$tmp/out" "$expected"; then
    passed=$((passed + 1))
  else
    echo "FAIL $name: exit $rc (wanted $want_rc)"
    diff -u "$expected" "$tmp/out" | sed 's/^/  /'
    sed 's/^/  stderr: /' "$tmp/err"
    failed=$((failed + 1))
  fi
}

for model in "$src"/tests/lint/*.json; do
  name=$(basename "$model" .json)
  expected=${model%.json}.expected
  lines=$(wc -l <"$expected")
  if [[ $name == clean && $lines -ne 0 ]] || [[ $name != clean && $lines -ne 1 ]]; then
    echo "FAIL $name: $expected holds $lines findings; a bad model shows exactly one, clean none"
    failed=$((failed + 1))
    continue
  fi
  check "$name" "$model" "$expected"
done
for example in saas blog games orgchart mailbox; do
  check "example-$example" "$src/examples/$example/model.json" \
    "$src/tests/lint/examples/$example.expected"
  if grep -q '^error ' "$src/tests/lint/examples/$example.expected"; then
    echo "FAIL example-$example: an example model must lint without errors"
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
