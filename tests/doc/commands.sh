#!/usr/bin/env bash
# Every `$ ddbst ...` example of the pages given is what the command prints:
# each is run from the source directory (its stdout and stderr together)
# and compared with the lines after it, up to the next `$` or the end of
# the code block. A command may go on over lines that end in a backslash.
# Usage: commands.sh PATH_TO_DDBST SOURCE_DIR PAGE...
set -u
ddbst=$1
src=$2
shift 2
passed=0 failed=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# Runs `cmd` and compares with `want`; `where` is PAGE:LINE for messages.
check() {
  local where=$1 cmd=$2 want=$3
  (cd "$src" && DDBST="$ddbst" bash -c "${cmd/#ddbst /\"\$DDBST\" }" >"$tmp" 2>&1)
  if [[ "$(cat "$tmp")" == "$want" ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL $where: $cmd"
    diff <(printf '%s\n' "$want") "$tmp" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
}

for page in "$@"; do
  n=0 in_block=0 cmd='' want='' at=0 more=0
  while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    if [[ $line == '```'* ]]; then
      [[ -n $cmd ]] && check "$page:$at" "$cmd" "$want"
      cmd='' want='' more=0
      in_block=$((1 - in_block))
      continue
    fi
    [[ $in_block -eq 1 ]] || continue
    if [[ $more -eq 1 ]]; then
      cmd+=$'\n'$line
      [[ $line == *'\' ]] || more=0
    elif [[ $line == '$ ddbst '* ]]; then
      [[ -n $cmd ]] && check "$page:$at" "$cmd" "$want"
      cmd=${line#'$ '} want='' at=$n
      [[ $line == *'\' ]] && more=1
    elif [[ -n $cmd ]]; then
      want+=${want:+$'\n'}$line
    fi
  done <"$src/$page"
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
