#!/usr/bin/env bash
# The ABI check. The shared library exports exactly the functions ddbst.h
# declares with DDBST_API (nothing internal leaks, nothing declared is
# missing), and both are the intended list, tests/abi/symbols.txt: adding
# or removing a function is a change to that list, made on purpose. A
# function of the previous minor series (symbols-0.1.txt) that is gone must
# be named in CHANGELOG.md, and the header's DDBST_VERSION_* must be the
# project's version (CMakeLists.txt).
# Usage: check_exports.sh LIBDDBST_SO DDBST_H [SOURCE_DIR PROJECT_VERSION]
set -euo pipefail
lib=$1
header=$2
src=${3:-}
version=${4:-}
fail=0
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u)
declared=$(tr '\n' ' ' <"$header" | grep -oE 'DDBST_API [^;(]*\(' |
  grep -oE 'ddbst_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u)
if [[ "$exported" != "$declared" ]]; then
  echo "exported symbols differ from the header's DDBST_API declarations:"
  diff <(echo "$declared") <(echo "$exported") | sed 's/^</  declared only:/; s/^>/  exported only:/' || true
  fail=1
fi
if [[ -n "$src" ]]; then
  intended=$(sort -u "$src/tests/abi/symbols.txt")
  if [[ "$declared" != "$intended" ]]; then
    echo "ddbst.h's functions differ from the intended list tests/abi/symbols.txt:"
    diff <(echo "$intended") <(echo "$declared") | grep '^[<>]' |
      sed 's/^</  listed, not declared:/; s/^>/  declared, not listed:/' || true
    echo "  (a deliberate change: update tests/abi/symbols.txt and CHANGELOG.md)"
    fail=1
  fi
  for gone in $(comm -23 <(sort -u "$src/tests/abi/symbols-0.1.txt") <(echo "$declared")); do
    if ! grep -q "\`$gone\`" "$src/CHANGELOG.md"; then
      echo "$gone (0.1) is gone, and CHANGELOG.md does not say so"
      fail=1
    fi
  done
  if [[ -n "$version" ]]; then
    IFS=. read -r major minor patch <<<"$version"
    for part in "MAJOR $major" "MINOR $minor" "PATCH $patch" "STRING \"$version\""; do
      set -- $part
      if ! grep -qE "^#define DDBST_VERSION_$1 $2\$" "$header"; then
        echo "ddbst.h: DDBST_VERSION_$1 is not $2 (the project's version is $version)"
        fail=1
      fi
    done
  fi
fi
[[ $fail -eq 0 ]] || exit 1
n=$(echo "$exported" | wc -l)
echo "$n exported symbols, all declared in ddbst.h${src:+ and listed in tests/abi/symbols.txt}"
echo "1 passed, 0 failed"
