#!/usr/bin/env bash
# tests/check_quickstart.sh - the QUICK START of ecs.h's doc block and the C
# blocks of README.md (the "Quick start" one and every one marked as compiled)
# compile (C99 and C++11, -Werror) and run, so the documentation cannot drift
# from the code. (The other headers' QUICK STARTs are checked by their tests.)
set -eu
cd "$(dirname "$0")/.."
out=${BUILD_DIR_ROOT:-/tmp}/quickstart
mkdir -p "$out"
STB=${STB_INCLUDE:-/usr/include/stb}
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"

# ecs.h: the indented block between "QUICK START" and the next CAPS heading
awk '/^QUICK START/{on=1; next} on && /^[A-Z][A-Z ]+$/{exit} on{sub(/^    /, ""); print}' ecs.h >"$out/header.c"
# README.md: the first ```c block after "## Quick start", and every block
# after a "<!-- compiled and run by tests/check_quickstart.sh -->" line
awk '/^## Quick start/{sec=1} sec && /^```c/{on=1; next} on && /^```/{exit} on{print}' README.md >"$out/readme.c"
awk -v dir="$out" '/<!-- compiled and run by tests\/check_quickstart.sh -->/{want=1; next}
     want && /^```c/{on=1; n++; f=dir "/readme_" n ".c"; printf "" > f; next}
     on && /^```/{on=0; want=0; next}
     on{print > f}' README.md

n=0
for f in "$out/header.c" "$out/readme.c" "$out"/readme_*.c; do
  [ -s "$f" ] || { echo "empty quick start extracted into $f"; exit 1; }
  gcc -std=c99 $WARN -I. -I"$STB" "$f" -o "$out/qs_c" -lm
  "$out/qs_c"
  clang++ -x c++ -std=c++11 $WARN -I. -I"$STB" "$f" -o "$out/qs_cxx" -lm
  "$out/qs_cxx"
  n=$((n + 1))
done
echo "check_quickstart: $n quick starts compile and run as C99 and C++11"
