#!/usr/bin/env bash
# tests/soak.sh - the long runs that tests/run.sh keeps short (run it before a
# release, or overnight; it is not part of CI):
#   1. the reference models at 10^6 random operations per lookup kind
#      (run.sh: 2 x 10^5): test_transform's (transform managers) and
#      test_ecs's (component managers), under gcc's ASan+UBSan and at -O2;
#   2. every fuzz harness for FUZZ_SECONDS (default 300; run.sh: 10) seconds,
#      all at once, through tests/check_fuzz.sh.
# Prints one line per part and "soak: N failed"; exit status non-zero on any
# failure. Needs what tests/run.sh installs (gcc, clang, libstb-dev).
set -u
cd "$(dirname "$0")/.." || exit 2
STB_INCLUDE=${STB_INCLUDE:-/usr/include/stb}
OUT=${BUILD_DIR_ROOT:-build/soak}
mkdir -p "$OUT" || exit 2
export BUILD_DIR_ROOT=$OUT STB_INCLUDE
failed=0
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for cfg in "asan|-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" "release|-O2 -DNDEBUG"; do
  name=${cfg%%|*}; flags=${cfg#*|}
  for t in "test_transform|-DTEST_MODEL_OPS=500000" "test_ecs|-DTEST_COMPONENT_OPS=1000000"; do
    test=${t%%|*}; ops=${t#*|}; bin="$OUT/${test}_$name"
    # shellcheck disable=SC2086
    if gcc -std=c99 $flags $WARN $ops -I. -Itests "tests/$test.c" -o "$bin" -lm && "$bin" >"$bin.log" 2>&1; then
      echo "ok    $test ($name, 10^6 operations per lookup kind): $(tail -1 "$bin.log")"
    else
      failed=$((failed + 1)); echo "FAIL  $test ($name)"; tail -n 20 "$bin.log" 2>/dev/null
    fi
  done
done
if FUZZ_SECONDS=${FUZZ_SECONDS:-300} bash tests/check_fuzz.sh >"$OUT/fuzz.log" 2>&1; then
  echo "ok    $(tail -1 "$OUT/fuzz.log")"
else
  failed=$((failed + 1)); echo "FAIL  tests/check_fuzz.sh"; tail -n 40 "$OUT/fuzz.log"
fi
echo "soak: $failed failed"
[ "$failed" -eq 0 ]
