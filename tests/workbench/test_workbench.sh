#!/usr/bin/env bash
# ddbst workbench: the export of both example models equals its golden file
# (tests/workbench/*.workbench.json), the import of the SaaS export equals
# its golden model and note, and the round trip holds: the imported model
# loads and exports to the same Workbench model, its sample data aside (the
# types the format cannot say make other samples). A Workbench model made
# elsewhere imports into a model that loads, with a note. Usage:
# test_workbench.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
here=$src/tests/workbench
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { passed=$((passed + 1)); }
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

same() { # NAME GOT GOLDEN
  if cmp -s "$2" "$3"; then pass; else
    fail "$1 differs from $3:"
    diff -u "$3" "$2" | head -20
  fi
}

# structure equal but TableData: the round trip
same_but_data() { # NAME A B
  if python3 - "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for m in (a, b):
    for t in m["DataModel"]:
        t.pop("TableData")
if a != b:
    print(json.dumps(a, indent=1)[:2000]); print(json.dumps(b, indent=1)[:2000])
    sys.exit(1)
PY
  then pass; else fail "$1: the round trip changed the model"; fi
}

for name in saas blog; do
  (cd "$src" && "$ddbst" workbench "examples/$name/model.json") >"$tmp/$name.wb" || fail "export $name"
  same "export $name" "$tmp/$name.wb" "$here/$name.workbench.json"
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); t=m["DataModel"][0]; assert t["TableData"] and t["TableFacets"] and t["GlobalSecondaryIndexes"]' "$tmp/$name.wb" &&
    pass || fail "export $name lacks data, facets or indexes"
  "$ddbst" workbench --import "$here/$name.workbench.json" >"$tmp/$name.model.json" 2>"$tmp/$name.note"
  rc=$?
  [[ $rc -eq 0 ]] && pass || fail "import $name: exit $rc: $(cat "$tmp/$name.note")"
  "$ddbst" check "$tmp/$name.model.json" >/dev/null && pass || fail "the imported $name model does not load"
  (cd "$tmp" && "$ddbst" workbench "$name.model.json") >"$tmp/$name.again.wb" || fail "export of the imported $name"
  same_but_data "$name" "$tmp/$name.wb" "$tmp/$name.again.wb"
done
same "import saas" "$tmp/saas.model.json" "$here/saas.imported.json"
sed "s|$here/||" "$tmp/saas.note" >"$tmp/saas.note.rel"
same "the saas import's note" "$tmp/saas.note.rel" "$here/saas.import-note.txt"
grep -q 'position is zero-padded to 4 digits' "$tmp/blog.note" && pass || fail "blog note: $(cat "$tmp/blog.note")"

# a model made in NoSQL Workbench: aliases that are no templates, no data
"$ddbst" workbench --import "$here/music.workbench.json" >"$tmp/music.json" 2>"$tmp/music.note"
rc=$?
[[ $rc -eq 0 ]] && "$ddbst" check "$tmp/music.json" >/dev/null && pass || fail "music: exit $rc: $(cat "$tmp/music.note")"
grep -q "SongDetails's partition key: the alias is no template; written as SONGDETAILS#{SongId}" "$tmp/music.note" &&
  pass || fail "music note: $(cat "$tmp/music.note")"

# what is not a Workbench model
echo '{"ddbst": 1}' >"$tmp/not.json"
out=$("$ddbst" workbench --import "$tmp/not.json" 2>&1)
[[ $? -eq 2 && $out == *'not a NoSQL Workbench data model'* ]] && pass || fail "not a model: $out"
echo '{' >"$tmp/bad.json"
out=$("$ddbst" workbench --import "$tmp/bad.json" 2>&1)
[[ $? -eq 2 && $out == *"bad.json: not JSON"* ]] && pass || fail "not JSON: $out"
out=$("$ddbst" workbench 2>&1)
[[ $? -eq 2 && $out == *'workbench takes a model file, or --import FILE'* ]] && pass || fail "usage: $out"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
