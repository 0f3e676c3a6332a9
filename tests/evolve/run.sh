#!/usr/bin/env bash
# `ddbst diff` on pairs of small models, one pair per class of change
# (tests/evolve/NAME.old.json and NAME.new.json): the text must equal
# NAME.expected, the JSON NAME.expected.json, and the exit code must be the
# one the worst class gives (0 for none and free, 10 + the class above).
# Usage: run.sh PATH_TO_DDBST SOURCE_DIR [--update]
set -u
ddbst=$1
src=$2
update=${3:-}
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

code_of() {
  case $1 in
    none | free) echo 0 ;; cleanup) echo 12 ;; backfill) echo 13 ;;
    rewrite) echo 14 ;; unsafe) echo 15 ;; impossible) echo 16 ;; *) echo 2 ;;
  esac
}

cd "$src"
for old in tests/evolve/*.old.json; do
  name=${old%.old.json}
  new=$name.new.json
  "$ddbst" diff "$old" "$new" >"$tmp/text" 2>"$tmp/err"
  rc_text=$?
  "$ddbst" diff "$old" "$new" --json >"$tmp/json" 2>>"$tmp/err"
  rc_json=$?
  if [[ $update == --update ]]; then
    cp "$tmp/text" "$name.expected"
    cp "$tmp/json" "$name.expected.json"
  fi
  worst=$(sed -n 's/.*"worst":"\([a-z]*\)".*/\1/p' "$name.expected.json")
  want=$(code_of "$worst")
  tail=$(tail -n 1 "$name.expected")
  if [[ $worst == none ]]; then
    [[ $tail == "no change" ]] || worst=mismatch
  elif [[ $tail != *"the worst: $worst" ]]; then
    worst=mismatch
  fi
  if [[ ! -s $tmp/err && $rc_text -eq $want && $rc_json -eq $want && $worst != mismatch ]] &&
    cmp -s "$tmp/text" "$name.expected" && cmp -s "$tmp/json" "$name.expected.json"; then
    passed=$((passed + 1))
  else
    echo "FAIL $name: exit $rc_text / $rc_json (wanted $want for $worst)"
    diff -u "$name.expected" "$tmp/text" | sed 's/^/  /'
    diff -u "$name.expected.json" "$tmp/json" | sed 's/^/  /'
    sed 's/^/  stderr: /' "$tmp/err"
    failed=$((failed + 1))
  fi
done
# lint --since: the unsafe and impossible changes are findings, in every
# format, and make the exit 1
for format in text json sarif; do
  ext=${format/text/expected}
  want=tests/evolve/lint-since.$ext
  "$ddbst" lint tests/evolve/unsafe.new.json --since tests/evolve/unsafe.old.json \
    --format "$format" >"$tmp/lint" 2>"$tmp/err"
  rc=$?
  [[ $update == --update ]] && cp "$tmp/lint" "$want"
  if [[ $rc -eq 1 && ! -s $tmp/err ]] && cmp -s "$tmp/lint" "$want" &&
    grep -q "change-unsafe\|^error .*check first" "$want"; then
    passed=$((passed + 1))
  else
    echo "FAIL lint --since --format $format: exit $rc (wanted 1)"
    diff -u "$want" "$tmp/lint" | sed 's/^/  /'
    sed 's/^/  stderr: /' "$tmp/err"
    failed=$((failed + 1))
  fi
done
# --table names the table in force for both models: no rename
out=$("$ddbst" --table blog-prod diff tests/evolve/none.old.json tests/evolve/none.new.json 2>&1)
rc=$?
if [[ $rc -eq 0 && $out == "no change" ]]; then
  passed=$((passed + 1))
else
  echo "FAIL --table: exit $rc: $out"
  failed=$((failed + 1))
fi
# every class has its golden pair
for class in none free cleanup backfill rewrite unsafe impossible; do
  if ! grep -lq "\"worst\":\"$class\"" tests/evolve/*.expected.json; then
    echo "FAIL no golden pair whose worst change is $class"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
