#!/usr/bin/env bash
# The shared library exports exactly the functions ddbst.h declares with
# DDBST_API: nothing internal leaks, nothing declared is missing.
# Usage: check_exports.sh LIBDDBST_SO DDBST_H
set -euo pipefail
lib=$1
header=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u)
declared=$(tr '\n' ' ' <"$header" | grep -oE 'DDBST_API [^;(]*\(' |
  grep -oE 'ddbst_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u)
if [[ "$exported" != "$declared" ]]; then
  echo "exported symbols differ from the header's DDBST_API declarations:"
  diff <(echo "$declared") <(echo "$exported") | sed 's/^</  declared only:/; s/^>/  exported only:/'
  exit 1
fi
n=$(echo "$exported" | wc -l)
echo "$n exported symbols, all declared in ddbst.h"
echo "1 passed, 0 failed"
