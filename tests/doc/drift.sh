#!/usr/bin/env bash
# The docs say what the code does: docs/examples/*.md are `ddbst doc` of the
# example models (regenerate them with
# `ddbst doc examples/NAME/model.json > docs/examples/NAME.md`), and every
# `$` example and C program of docs/ and the bindings' READMEs runs and
# prints what its page says (tests/doc/examples.py).
# Usage: drift.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
passed=0 failed=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for name in saas blog games orgchart mailbox; do
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
echo "ddbst doc: $passed passed, $failed failed"
python3 "$src/tests/doc/examples.py" "$ddbst" "$src" || failed=$((failed + 1))
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
