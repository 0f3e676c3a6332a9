#!/usr/bin/env bash
# docs/examples/*.md are `ddbst doc` of the example models: this fails when
# either drifts from what the command prints (regenerate them with
# `ddbst doc examples/NAME/model.json > docs/examples/NAME.md`).
# Usage: drift.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
passed=0 failed=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for name in saas blog; do
  "$ddbst" doc "$src/examples/$name/model.json" >"$tmp"
  rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: ddbst doc exited $rc"
    failed=$((failed + 1))
  elif ! diff -u "$src/docs/examples/$name.md" "$tmp"; then
    echo "FAIL $name: docs/examples/$name.md differs from ddbst doc (above)"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
