#!/usr/bin/env bash
# ddbst as a user consumes it: install the calling preset's build into a
# temporary prefix, then build tests/package/consumer.c against that prefix
# with find_package(ddbst), with pkg-config, and statically with pkg-config
# --static (ddbst-static.pc), and check each program's output; run the
# installed command from a moved prefix; and build the consumer with ddbst
# as a subproject of another project.
# Usage: test_package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
here="$source_dir/tests/package"
model="$source_dir/examples/saas/model.json"

work=$(mktemp -d "${TMPDIR:-/tmp}/ddbst-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

expected='PK=ORG#123
SK=USER#9
GSI1PK=EMAIL#ann@example.com
_type=User'

fail() { echo "FAIL: $*" >&2; exit 1; }

check_output() { # label, program
  local got
  got=$("$2" "$model") || fail "$1: consumer exited with $?"
  [[ "$got" == "$expected" ]] ||
    fail "$1: output differs"$'\n'"expected:"$'\n'"$expected"$'\n'"got:"$'\n'"$got"
  echo "ok: $1"
}

# A sanitized library (the asan and tsan presets) needs its sanitizer's
# runtime in the program that loads it: give the consumer the same flag, as
# a user consuming such a build would have to.
sanitize=$(sed -n 's/^DDBST_SANITIZE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
san_flags=()
if [[ -n "$sanitize" ]]; then
  san_flags=(-fsanitize="$sanitize")
  echo "note: library built with -fsanitize=$sanitize; consumer gets it too"
fi

# The consumer is built by the compiler that built the library (the clang
# preset's run tests clang's consumer, not gcc's a second time).
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
cc=${cc:-${CC:-cc}}
echo "note: consumers built with $cc"

cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log" ||
  { cat "$work/install.log" >&2; fail "cmake --install"; }

# GNUInstallDirs may pick lib or lib64 (or a multiarch dir): find ddbst.pc.
pc=$(find "$prefix" -name ddbst.pc -path '*/pkgconfig/*' | head -n 1)
[[ -n "$pc" ]] || fail "no ddbst.pc installed"
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")

# 1. find_package(ddbst) and ddbst::ddbst, in a project of its own.
cmake -S "$here" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="${san_flags[*]}" \
      >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; fail "consumer configure"; }
cmake --build "$work/cmake-build" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "consumer build"; }
# CMake gives the consumer's build tree an rpath to the prefix's libdir.
check_output "find_package(ddbst)" "$work/cmake-build/consumer"

# 2. pkg-config --cflags --libs ddbst, against the shared library.
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046 # pkg-config's output is meant to be split
"$cc" -std=c11 -Wall -Wextra "${san_flags[@]}" "$here/consumer.c" \
      -o "$work/consumer-pc" $(pkg-config --cflags --libs ddbst) ||
  fail "pkg-config build"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  check_output "pkg-config --cflags --libs ddbst" "$work/consumer-pc"

# 3. pkg-config --static --libs ddbst-static: libddbst.a itself, plus every
# dependency Requires.private and Libs.private name (the distribution ships
# shared yajl and libcbor, so only ddbst is static).
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra "${san_flags[@]}" \
      "$here/consumer.c" -o "$work/consumer-static" \
      $(pkg-config --static --cflags --libs ddbst-static) ||
  fail "pkg-config --static build"
if readelf -d "$work/consumer-static" | grep -q 'NEEDED.*libddbst'; then
  fail "static consumer still needs libddbst.so"
fi
(unset LD_LIBRARY_PATH
 check_output "pkg-config --static --libs ddbst-static" "$work/consumer-static")

# 4. The installed command runs from the prefix, wherever it is (its RPATH
# is relative to itself), even moved elsewhere after installing.
if [[ -x "$prefix/bin/ddbst" ]]; then
  mv "$prefix" "$work/moved"
  got=$(unset LD_LIBRARY_PATH; "$work/moved/bin/ddbst" check "$model") ||
    fail "the installed ddbst does not start from its prefix"
  [[ "$got" == '{"ok":true,"table":"saas-api-dev","entities":4,"patterns":7}' ]] ||
    fail "installed ddbst check: $got"
  mv "$work/moved" "$prefix"
  echo "ok: the installed command runs from a moved prefix"
  # with it, its manual, its completion for bash and zsh, the model's schema
  for f in share/man/man1/ddbst.1 share/bash-completion/completions/ddbst \
           share/zsh/site-functions/_ddbst share/ddbst/ddbst.schema.json; do
    [[ -s "$prefix/$f" ]] || fail "cmake --install did not install $f"
  done
  grep -q '^\.B workbench$' "$prefix/share/man/man1/ddbst.1" ||
    fail "the installed ddbst.1 lacks the verbs"
  cmp -s "$prefix/share/ddbst/ddbst.schema.json" "$source_dir/schema/ddbst.schema.json" ||
    fail "the installed schema is not schema/ddbst.schema.json"
  echo "ok: the manual, bash and zsh completion and the schema are installed"
fi

# 5. ddbst as a subproject (add_subdirectory): the libraries only, no test
# targets in the parent, and no cmocka asked for. Once, in the gcc build
# without sanitizers (the default preset): it builds the library a second
# time (25 s), and what it checks is CMake's wiring, the same whichever
# compiler (the clang preset builds the same sources with clang).
[[ -z "$sanitize" ]] || exit 0
case "$(basename "$cc")" in *clang*) exit 0 ;; esac
mkdir -p "$work/parent"
cat >"$work/parent/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES C)
enable_testing()
add_subdirectory("$source_dir" ddbst)
add_executable(consumer "$here/consumer.c")
target_link_libraries(consumer PRIVATE ddbst::ddbst)
CMAKE
cmake -S "$work/parent" -B "$work/parent-build" -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="${san_flags[*]}" >"$work/parent.log" 2>&1 ||
  { cat "$work/parent.log" >&2; fail "subproject configure"; }
if grep -qi cmocka "$work/parent-build/CMakeCache.txt"; then
  fail "a parent project of ddbst was asked for cmocka"
fi
cmake --build "$work/parent-build" --target consumer -j2 >>"$work/parent.log" 2>&1 ||
  { cat "$work/parent.log" >&2; fail "subproject build"; }
tests=$(cd "$work/parent-build" && ctest -N | sed -n 's/^Total Tests: //p')
[[ "$tests" == 0 ]] || fail "the parent project got $tests of ddbst's tests"
check_output "add_subdirectory(ddbst)" "$work/parent-build/consumer"
