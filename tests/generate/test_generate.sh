#!/usr/bin/env bash
# `ddbst generate typescript|python|c`: the declarations of every example
# model type-check; for the shop model a right program compiles and runs
# against DynamoDB Local, and each wrong one (a misspelt attribute, a
# missing partition value, a wrong value type, ...) fails tsc --strict,
# mypy --strict or cc -Werror, naming what is wrong.
# Usage (bindings/test runs it, after its python and node steps):
#   test_generate.sh DDBST_COMMAND WORK_DIR PYTHON_VENV NODE_PROJECT TSC
set -euo pipefail

ddbst=$1 work=$2 venv=$3 project=$4 tsc=$5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$work/generate"
rm -rf "$out" && mkdir -p "$out"
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }

export SHOP_MODEL="$root/examples/shop/model.json"
export SHOP_CURSOR_KEY
SHOP_CURSOR_KEY=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')

# A wrong program must fail, and say so about the token its first line
# names ("expect: TS2353 'quantitty'").
expect_refused() { # label file log
  local want
  want=$(head -n 1 "$2" | sed -E 's/^(\/\/|#|\/\*) expect: //; s/ \*\/$//')
  local token=${want##* } code=${want%% *}
  [[ "$code" == "$token" ]] && code=
  if grep -qF -- "${token//\'/}" "$3" && { [[ -z "$code" ]] || grep -qF -- "$code" "$3"; }; then
    ok "$1 refuses $(basename "$2") ($want)"
  else
    bad "$1 did not refuse $(basename "$2") with $want:"; sed 's/^/  | /' "$3" >&2
  fi
}

# ---- every example model: the declarations themselves check ----
for m in saas blog shop; do
  "$ddbst" generate typescript "$root/examples/$m/model.json" >"$out/$m.ts"
  "$ddbst" generate python "$root/examples/$m/model.json" >"$out/${m}_model.py"
  "$ddbst" generate c "$root/examples/$m/model.json" >"$out/$m.h"
done

# ---- TypeScript: in the project where the npm package is installed ----
ts="$project/generated"
rm -rf "$ts" && mkdir -p "$ts"
cp "$out"/*.ts "$here"/shop_*.ts "$ts/"
tsconfig() { # files...
  local files
  files=$(printf '"%s",' "$@")
  printf '{"compilerOptions":{"strict":true,"module":"node16","moduleResolution":"node16","target":"es2022","types":["node"],"outDir":"out","noEmitOnError":true},"files":[%s]}\n' "${files%,}" >"$ts/tsconfig.json"
}
tsconfig saas.ts blog.ts shop.ts shop_ok.ts
if (cd "$ts" && "$tsc" -p tsconfig.json) >"$out/tsc.log" 2>&1; then
  ok "tsc --strict: the declarations of saas, blog, shop and shop_ok.ts"
  if (cd "$ts" && SHOP_TABLE="shop-gen-ts-$$" node out/shop_ok.js) >"$out/ts-run.log" 2>&1; then
    ok "shop_ok.ts runs against DynamoDB Local"
  else
    bad "shop_ok.ts run:"; sed 's/^/  | /' "$out/ts-run.log" >&2
  fi
else
  bad "tsc --strict:"; sed 's/^/  | /' "$out/tsc.log" >&2
fi
for f in "$here"/shop_bad_*.ts; do
  tsconfig shop.ts "$(basename "$f")"
  if (cd "$ts" && "$tsc" -p tsconfig.json --noEmit) >"$out/tsc-bad.log" 2>&1; then
    bad "tsc --strict accepted $(basename "$f")"
  else
    expect_refused "tsc --strict" "$f" "$out/tsc-bad.log"
  fi
done

# ---- Python: mypy --strict with the installed package, then a run ----
cp "$here"/shop_*.py "$out/"
mypy() { (cd "$out" && /usr/bin/python3 -m mypy --strict --no-incremental \
          --python-executable "$venv/bin/python" "$@"); }
if mypy saas_model.py blog_model.py shop_model.py shop_ok.py >"$out/mypy.log" 2>&1; then
  ok "mypy --strict: the modules of saas, blog, shop and shop_ok.py"
  if (cd "$out" && SHOP_TABLE="shop-gen-py-$$" "$venv/bin/python" shop_ok.py) >"$out/py-run.log" 2>&1; then
    ok "shop_ok.py runs against DynamoDB Local"
  else
    bad "shop_ok.py run:"; sed 's/^/  | /' "$out/py-run.log" >&2
  fi
else
  bad "mypy --strict:"; sed 's/^/  | /' "$out/mypy.log" >&2
fi
for f in "$here"/shop_bad_*.py; do
  if mypy "$(basename "$f")" >"$out/mypy-bad.log" 2>&1; then
    bad "mypy --strict accepted $(basename "$f")"
  else
    expect_refused "mypy --strict" "$f" "$out/mypy-bad.log"
  fi
done

# ---- C: cc -Werror against the installed library, then a run ----
cflags=(-std=c11 -Wall -Wextra -Wpedantic -Werror -I"$out" -I"$root/examples/curl")
cp "$here"/shop_*.c "$out/"
for m in saas blog shop; do
  printf '#include "%s.h"\nint main(void) { return 0; }\n' "$m" >"$out/include_$m.c"
  # shellcheck disable=SC2046
  if cc "${cflags[@]}" $(pkg-config --cflags ddbst) -c "$out/include_$m.c" -o "$out/include_$m.o" 2>"$out/cc.log"; then
    ok "cc -Werror: $m.h"
  else
    bad "cc $m.h:"; sed 's/^/  | /' "$out/cc.log" >&2
  fi
done
# shellcheck disable=SC2046
if cc "${cflags[@]}" "$out/shop_ok.c" "$root/examples/curl/dynamo_http.c" -o "$out/shop_ok" \
      $(pkg-config --cflags --libs ddbst libcurl) -Wl,-rpath,"$(pkg-config --variable=libdir ddbst)" 2>"$out/cc.log"; then
  ok "cc -Werror: shop_ok.c"
  if "$out/shop_ok" "$SHOP_MODEL" "shop-gen-c-$$" >"$out/c-run.log" 2>&1; then
    ok "shop_ok.c runs against DynamoDB Local"
  else
    bad "shop_ok.c run:"; sed 's/^/  | /' "$out/c-run.log" >&2
  fi
else
  bad "cc shop_ok.c:"; sed 's/^/  | /' "$out/cc.log" >&2
fi
for f in "$here"/shop_bad_*.c; do
  # shellcheck disable=SC2046
  if cc "${cflags[@]}" $(pkg-config --cflags ddbst) -c "$f" -o "$out/bad.o" >"$out/cc-bad.log" 2>&1; then
    bad "cc -Werror accepted $(basename "$f")"
  else
    expect_refused "cc -Werror" "$f" "$out/cc-bad.log"
  fi
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
