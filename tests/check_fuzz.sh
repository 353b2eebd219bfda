#!/usr/bin/env bash
# tests/check_fuzz.sh - the fuzz harnesses of ecs_resource.h, ecs_snapshot.h
#   and ecs_console.h (and of the dependency checker's cache reader) as one
#   check: with clang's libFuzzer, each harness (address + undefined
#   sanitizers) first runs every input of its corpus (tests/corpus/fuzz_resource,
#   fuzz_json, fuzz_decompile, fuzz_snapshot, fuzz_references, fuzz_deps_cache,
#   fuzz_console, fuzz_delta, fuzz_node: examples/node.h's message and traffic
#   log readers), then fuzzes for FUZZ_SECONDS
#   (default 10; tests/soak.sh: 300) seconds, all at once. Without libFuzzer
#   it says so and replays the corpora with plain builds instead
#   (-DFUZZ_STANDALONE, gcc, the same sanitizers). Before that, every
#   harness must compile warning-free in both forms (with and without
#   -DFUZZ_STANDALONE) under -Wall -Wextra -Wpedantic -Werror -Wshadow
#   -Wconversion, with gcc and clang.
# New inputs go to the build folder, never into the repository's corpus; a
# crash leaves its input there too (crash-*): add it to tests/corpus/<name>/.
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${BUILD_DIR_ROOT:-build/tests}/fuzz
STB=${STB_INCLUDE:-/usr/include/stb}
CLANG=${CLANG:-clang}
SECONDS_EACH=${FUZZ_SECONDS:-10}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$OUT" || exit 2
status=0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Every harness compiles warning-free first, in both forms (the libFuzzer
# entry alone and the replay's main), with the project's warnings: gcc and,
# where it exists, clang (clang reports unused static functions even with
# -fsyntax-only; gcc's unused-parameter and the rest).
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
HARNESSES="resource json decompile snapshot references deps_cache console delta node"
for h in $HARNESSES; do
  for form in "" -DFUZZ_STANDALONE; do
    for cc in gcc "$CLANG"; do
      command -v "$cc" >/dev/null 2>&1 || continue
      # shellcheck disable=SC2086
      if ! "$cc" -std=c99 -fsyntax-only $WARN $form -I. -I"$STB" "tests/fuzz_$h.c" >"$OUT/warn_$h.log" 2>&1; then
        echo "check_fuzz: fuzz_$h.c ${form:+($form) }has warnings with $cc $WARN:"; head -n 20 "$OUT/warn_$h.log"; status=1
      fi
    done
  done
done

probe="$OUT/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! command -v "$CLANG" >/dev/null 2>&1 || ! "$CLANG" -fsanitize=fuzzer "$probe" -o "$OUT/probe" >/dev/null 2>&1; then
  for h in $HARNESSES; do
    if ! gcc -std=c99 -g -O1 $SAN -DFUZZ_STANDALONE -I. -I"$STB" "tests/fuzz_$h.c" -o "$OUT/replay_$h" -lm; then
      echo "check_fuzz: build of the replay of fuzz_$h failed"; status=1; continue
    fi
    "$OUT/replay_$h" "tests/corpus/fuzz_$h" || { echo "check_fuzz: the corpus of fuzz_$h fails"; status=1; }
  done
  echo "check_fuzz: corpus replayed; libFuzzer runs skipped: '$CLANG -fsanitize=fuzzer' does not work here (Debian: apt-get install clang)"
  exit $status
fi

pids=()
for h in $HARNESSES; do
  if ! "$CLANG" -g -O1 -fsanitize=fuzzer $SAN -I. -I"$STB" "tests/fuzz_$h.c" -o "$OUT/fuzz_$h" -lm; then
    echo "check_fuzz: libFuzzer build of fuzz_$h failed"; status=1; continue
  fi
  mkdir -p "$OUT/new_$h"
  dict=""; [ -f "tests/fuzz_$h.dict" ] && dict="-dict=tests/fuzz_$h.dict"
  "$OUT/fuzz_$h" $dict -max_total_time="$SECONDS_EACH" -print_final_stats=1 -artifact_prefix="$OUT/" \
    "$OUT/new_$h" "tests/corpus/fuzz_$h" >"$OUT/fuzz_$h.log" 2>&1 &
  pids+=("$!:$h")
done
summary=""
for p in "${pids[@]}"; do
  pid=${p%%:*}; h=${p#*:}
  if ! wait "$pid"; then
    echo "check_fuzz: fuzz_$h found a problem (input in $OUT/crash-* or $OUT/leak-*):"; tail -n 40 "$OUT/fuzz_$h.log"; status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/fuzz_$h.log" | grep -o '[0-9]*$')
  summary="$summary fuzz_$h ${runs:-?} runs;"
done
echo "check_fuzz: corpus replayed,${summary} ${SECONDS_EACH} s each"
exit $status
