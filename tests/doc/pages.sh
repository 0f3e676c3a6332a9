#!/usr/bin/env bash
# docs/python.md, node.md, go.md, rust.md, c.md and lambda.md each hold a
# program that runs as written: its files are the fenced blocks whose info
# string names a file (```python shop_demo.py). This writes each page's
# files into a directory of its own, demo/, beside links to the tree's
# bindings/ and examples/ (so "../bindings/go" in a go.mod resolves as it
# does in a checkout), and runs the page's program the way the page says.
# Usage (bindings/test runs it under DynamoDB Local):
#   pages.sh WORK_DIR PYTHON_VENV NODE_PROJECT [PAGE...]
set -euo pipefail

work=$1 venv=$2 project=$3
shift 3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
passed=0 failed=0
# Debian's toolchain over another one earlier on PATH (CI has Debian's).
tool() { if [[ -x "/usr/bin/$1" ]]; then echo "/usr/bin/$1"; else command -v "$1"; fi; }

# Writes the named blocks of page $1 into directory $2 and prints their
# names; a block named "output" is what the program must print, exactly.
materialize() {
  awk -v dir="$2" '
    /^```[A-Za-z0-9_+-]+ [^ ]+$/ && !file {
      file = dir "/" $2; parent = file; sub(/\/[^\/]*$/, "", parent)
      system("mkdir -p \"" parent "\"")
      printf "" > file; if ($2 != "output") print $2; next
    }
    /^```$/ && file { close(file); file = ""; next }
    file { print >> file }
  ' "$1"
}

run_page() { # name command...
  local name=$1
  shift
  local dir="$work/$name"
  rm -rf "$dir" && mkdir -p "$dir/demo"
  ln -s "$root/bindings" "$dir/bindings"
  ln -s "$root/examples" "$dir/examples"
  ln -s "$root/include" "$dir/include"
  ln -s "$root/tests" "$dir/tests"
  local files
  files=$(materialize "$root/docs/$name.md" "$dir/demo")
  if [[ -z "$files" ]]; then
    echo "FAIL docs/$name.md: no program in it"; failed=$((failed + 1)); return
  fi
  if ! (cd "$dir/demo" && "$@") >"$dir/stdout" 2>"$dir/stderr"; then
    echo "FAIL docs/$name.md: its program failed:"
    sed 's/^/  | /' "$dir/stdout" "$dir/stderr"
    failed=$((failed + 1))
  elif [[ -f "$dir/demo/output" ]] && ! diff -u "$dir/demo/output" "$dir/stdout"; then
    echo "FAIL docs/$name.md: the program printed other than the page says (above)"
    failed=$((failed + 1))
  else
    echo "ok docs/$name.md ($(echo "$files" | tr '\n' ' ')$([[ -f "$dir/demo/output" ]] && echo "and its output"))"
    passed=$((passed + 1))
  fi
}

# boto3 1.26 (Debian's) reads AWS_DEFAULT_REGION, not AWS_REGION
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-${AWS_REGION:-us-east-1}}"

pages=("$@")
[[ ${#pages[@]} -gt 0 ]] || pages=(python node go rust c lambda)
for page in "${pages[@]}"; do
  case $page in
    python) run_page python "$venv/bin/python" shop_demo.py ;;
    node)
      # in the project where the npm package is installed
      run_page node bash -c "cp shop_demo.mjs '$project/' && node '$project/shop_demo.mjs'" ;;
    go) run_page go env GOPATH="$work/go" GOCACHE="$work/go/cache" GOPROXY=off GOFLAGS=-mod=mod \
          CGO_LDFLAGS="-Wl,-rpath,$(pkg-config --variable=libdir ddbst)" "$(tool go)" run . ;;
    rust) run_page rust env DDBST_STATIC=1 CARGO_TARGET_DIR="$work/rust-target" CARGO_HOME="$work/cargo-home" \
          "$(tool cargo)" run --offline --quiet ;;
    c) run_page c bash -c 'bash build.sh && ./shop_demo' ;;
    lambda) run_page lambda env PIP="$venv/bin/pip" bash build-layer.sh ;;
    *) echo "pages.sh: no page $page" >&2; exit 2 ;;
  esac
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
