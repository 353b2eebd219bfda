#!/usr/bin/env bash
# tests/check_quickstart.sh - the one checker of the documentation's example
# programs: every quick start of README.md and of the five headers' doc blocks
# is extracted, compiled and run, so the documentation cannot drift from the
# code. No test program keeps a copy of one.
#
# Where the quick starts are (the marker names this script, so a reader of
# the documentation knows a test holds the code to it):
#   - a header (ecs.h, ecs_transform.h, ecs_resource.h, ecs_snapshot.h,
#     ecs_plugin.h): the lines after the heading
#         QUICK START (compiled and run by tests/check_quickstart.sh)
#     up to the next line that is neither blank nor indented (the next
#     heading), without their 4-space indent. Each header must have one.
#   - README.md: each ```c fenced block that follows a line
#         <!-- compiled and run by tests/check_quickstart.sh -->
#     (other ```c blocks are fragments and are not compiled).
# A quick start is one C file, unless it holds part lines
#         ---- NAME.c: the command that builds it ----
#     each of which starts a file NAME.c, up to the next part line or
#     "---- end ----". A part whose command says -shared is a library: it is
#     built as a shared library, and the programs (the other parts) run with
#     the libraries' paths as their arguments.
#
# Each quick start is built and run twice: gcc -std=c99 and clang++ -std=c++11
# (the latter with -Wdocumentation and AddressSanitizer + UBSan), both with
# -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion. Everything a run
# prints (stdout and stderr) must equal tests/quickstart/ID.out, where ID is
# the header's name (ecs_transform.h) or README.md.N for README.md's N-th
# marked block; a run that exits non-zero fails. What a run printed is kept
# in the build folder as ID.c99.out / ID.cxx11.out.
set -u
cd "$(dirname "$0")/.." || exit 2
out=${BUILD_DIR_ROOT:-/tmp}/quickstart
rm -rf "$out"
mkdir -p "$out" || exit 2
STB=${STB_INCLUDE:-/usr/include/stb}
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
MARK="compiled and run by tests/check_quickstart.sh"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
fail() { echo "check_quickstart: $*"; status=1; }

# split_parts ID < quick start text: $out/ID/NAME.c for each part (main.c
# when there are no part lines) and $out/ID/libs, the library parts' names
split_parts() {
  local dir="$out/$1"
  mkdir -p "$dir"
  awk -v dir="$dir" '
    /^---- end ----$/ { f = ""; next }
    /^---- .* ----$/ {
      name = $2; sub(/:$/, "", name); f = dir "/" name; printf "" > f
      if ($0 ~ / -shared /) print name > (dir "/libs")
      next
    }
    f == "" && /^$/ { next }
    { if (f == "") { f = dir "/main.c"; printf "" > f } print > f }'
  touch "$dir/libs"
}

ids=()
for h in ecs.h ecs_transform.h ecs_resource.h ecs_snapshot.h ecs_plugin.h; do
  n=$(grep -cxF "QUICK START ($MARK)" "$h")
  [ "$n" = 1 ] || { fail "$h: $n headings 'QUICK START ($MARK)', want 1"; continue; }
  awk -v head="QUICK START ($MARK)" '
    $0 == head { on = 1; next }
    on && /^[^ ]/ { exit }
    on { sub(/^    /, ""); print }' "$h" | split_parts "$h"
  ids+=("$h")
done
n=0
while IFS= read -r -d '' block; do
  n=$((n + 1))
  printf '%s' "$block" | split_parts "README.md.$n"
  ids+=("README.md.$n")
done < <(awk -v mark="<!-- $MARK -->" '
  $0 == mark { want = 1; next }
  want && /^```c$/ { on = 1; want = 0; next }
  on && /^```$/ { on = 0; printf "%c", 0; next }
  on { print }' README.md)
[ "$n" -gt 0 ] || fail "README.md: no block after '<!-- $MARK -->'"

# build_run ID TAG CC FLAGS...: builds the parts of ID with CC and FLAGS, runs
# each program with the libraries as arguments, compares what it printed
build_run() {
  local id=$1 tag=$2 cc=$3; shift 3
  local dir="$out/$id" libs=() f name ran=""
  local want="tests/quickstart/$id.out" got="$out/$id.$tag.out"
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    if ! "$cc" "$@" -shared -fPIC -I. -I"$STB" "$dir/$name" -o "$dir/${name%.c}-$tag.so" >"$dir/$name.$tag.log" 2>&1; then
      fail "$id: $name ($tag) does not build as a shared library:"; cat "$dir/$name.$tag.log"; return
    fi
    libs+=("$dir/${name%.c}-$tag.so")
  done <"$dir/libs"
  : >"$got"
  for f in "$dir"/*.c; do
    name=$(basename "$f")
    grep -qxF "$name" "$dir/libs" && continue
    if ! "$cc" "$@" -I. -I"$STB" "$f" -o "$dir/${name%.c}-$tag" -lm -ldl >"$f.$tag.log" 2>&1; then
      fail "$id: $name ($tag) does not build:"; cat "$f.$tag.log"; return
    fi
    "$dir/${name%.c}-$tag" "${libs[@]}" >>"$got" 2>&1 || fail "$id: $name ($tag) exits with $?"
    ran=1
  done
  [ -n "$ran" ] || { fail "$id: no program in the quick start"; return; }
  if [ ! -f "$want" ]; then
    fail "$id ($tag): no $want (what it printed is in $got: check it, then copy it there)"
  elif ! cmp -s "$want" "$got"; then
    fail "$id ($tag) printed something else than $want:"; diff "$want" "$got" | head -20
  fi
}

for id in "${ids[@]}"; do
  build_run "$id" c99 gcc -x c -std=c99 $WARN
  build_run "$id" cxx11 clang++ -x c++ -std=c++11 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
    -fno-sanitize-recover=undefined $WARN -Wdocumentation
done
[ "$status" = 0 ] && echo "check_quickstart: ${#ids[@]} quick starts (${ids[*]}) compile, run and print what tests/quickstart/ says, as C99 and C++11"
exit $status
