#!/usr/bin/env bash
# Completion for bash and zsh (completions/) and the manual, as a shell
# would run them with this `ddbst` first on PATH: verbs, a verb's options,
# the model's entities, attributes and patterns; ddbst(1) lists every verb
# and is clean troff. Usage: test_completion.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
saas=$src/examples/saas/model.json
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" && ln -s "$ddbst" "$tmp/bin/ddbst"
export PATH="$tmp/bin:$PATH"
pass() { passed=$((passed + 1)); }
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

# bash: COMPREPLY for a line, the cursor on its last word
bash_complete() {
  bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _ddbst
    printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$src/completions/ddbst.bash" "$@"
}
# expect_bash NAME "WANTED (sorted, space-separated)" WORDS...
expect_bash() {
  local name=$1 want=$2
  shift 2
  local got
  got=$(bash_complete "$@" | tr '\n' ' ' | sed 's/ $//')
  [[ $got == "$want" ]] && pass || fail "bash $name: got '$got', wanted '$want'"
}
expect_bash verbs "query" ddbst que
expect_bash verbs-after-table "view" ddbst --table t vie
expect_bash options "--limit" ddbst query "$saas" listUsers --li
expect_bash patterns "listEvents listProjects listUsers" ddbst query "$saas" list
expect_bash entities "Organisation" ddbst keys "$saas" Org
expect_bash attributes "userId=" ddbst keys "$saas" User us
expect_bash generate "python" ddbst generate py
expect_bash help "workbench" ddbst help wor
expect_bash diff-verb "diff" ddbst di
expect_bash diff-options "--table-renamed" ddbst diff a.json b.json --t
expect_bash lint-since "--since" ddbst lint "$saas" --si

if command -v zsh >/dev/null 2>&1; then
  zsh -n "$src/completions/_ddbst" && pass || fail "zsh: _ddbst does not parse"
  # compadd and _files stand in for the completion system's own
  zsh_complete() {
    zsh -f -c '
      compadd() { local -a a; while (( $# )); do case $1 in -S) shift 2;; --) shift;; *) a+=$1; shift;; esac; done; print -l -- $a }
      _files() { print FILES }
      file=$1; shift
      words=("$@"); CURRENT=$#; PREFIX=${words[-1]}
      source $file' _ "$src/completions/_ddbst" "$@" | grep -- "^$(printf '%s' "${@: -1}")" | sort
  }
  expect_zsh() {
    local name=$1 want=$2
    shift 2
    local got
    got=$(zsh_complete "$@" | tr '\n' ' ' | sed 's/ $//')
    [[ $got == "$want" ]] && pass || fail "zsh $name: got '$got', wanted '$want'"
  }
  expect_zsh verbs "query" ddbst que
  expect_zsh options "--limit" ddbst query "$saas" listUsers --li
  expect_zsh lint-since "--since" ddbst lint "$saas" --si
  expect_zsh patterns "listEvents listProjects listUsers" ddbst query "$saas" list
  expect_zsh entities "Organisation" ddbst keys "$saas" Org
  expect_zsh attributes "userId" ddbst keys "$saas" User us
else
  echo "note: no zsh: its completion is not tried (scripts/install-deps installs it)"
fi

# the manual: every verb, and groff has nothing to warn about
"$ddbst" help --man >"$tmp/ddbst.1" || fail "help --man"
for verb in $("$ddbst" help --verbs | grep -v '^help$'); do
  grep -q "^\.B $verb\$" "$tmp/ddbst.1" || fail "ddbst.1 lacks $verb"
done
pass
if command -v groff >/dev/null 2>&1; then
  warnings=$(groff -man -Tutf8 -ww -z "$tmp/ddbst.1" 2>&1)
  [[ -z $warnings ]] && pass || fail "groff: $warnings"
fi
out=$("$ddbst" help --names "$saas" entities | tr '\n' ' ')
[[ $out == 'Organisation User Project Event ' ]] && pass || fail "help --names: $out"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
