#!/usr/bin/env bash
# tests/run.sh - builds and runs every test program in every configuration.
#
#   tests/run.sh            all configurations and the check scripts (319
#                           jobs: 305 builds in 9 configurations, 14 check
#                           scripts): 11 min 46 s to 13 min 46 s on 2 idle
#                           cores (four runs on 2026-11-27; 22.8-23.8 CPU
#                           minutes for the first two). Under 15 minutes on 2
#                           idle cores
#   tests/run.sh quick      gcc C99, its sanitizer build and the check
#                           scripts (94 jobs): 12.5 CPU minutes (counted on
#                           2026-11-27; 7 min 46 s wall then, with other
#                           work on the machine). It skips clang C99, both
#                           C++11 builds, clang's sanitizer build, the -O2
#                           -DNDEBUG build, ThreadSanitizer and -m32
#   tests/run.sh m32        the -m32 configuration only, every test run
#                           (under qemu too), no check scripts
#   tests/soak.sh           the long runs this keeps short (reference models
#                           at 10^6 operations per lookup kind, 300 s of
#                           fuzzing per harness); not part of CI
# README.md states the same figures.
#
# Configurations, each with -Wall -Wextra -Wpedantic -Werror -Wshadow
# -Wconversion (and -Wdocumentation in the clang ones):
#   gcc-c99, clang-c99, gcc-cxx11, clang-cxx11    -g, as C99 / as C++11; -O0
#       but gcc-cxx11 (-O1: gcc's flow warnings; gcc C has them in
#       gcc-asan-c99 and gcc-release)
#   gcc-asan-c99, clang-asan-cxx11                -fsanitize=address,undefined
#       (gcc -O1, clang -O0)
#   gcc-release                                   -O2 -DNDEBUG
#   clang-tsan-c99                                -fsanitize=thread, only the
#       threaded tests (test_threads*.c; see applies below)
#   gcc-m32-c99                                   -m32 -std=c99 -O2, no
#       sanitizers; only where gcc -m32 can build (gcc-multilib is installed
#       with apt-get when missing and possible). Where this kernel cannot run
#       i386 binaries they run under qemu-i386 if it is installed (Debian:
#       qemu-user), or through a qemu binfmt_misc handler if one is
#       registered; otherwise they are built only. Under emulation the tests
#       named in M32_EMULATION_SLOW are built only too, except in "m32" mode.
# A test program runs with BUILD_DIR (its build folder), CC and CFLAGS_CONFIG
# (its configuration's compiler and flags) and RUN_PREFIX (empty, or
# "qemu-i386" when the i386 programs it builds must run under that emulator)
# in its environment.
# Every build+run is one test; tests/check_*.sh scripts add one test each
# and run in the same pool.
# Each result is printed as soon as its job finishes (jobs run in parallel,
# so in the order they finish), with a running count: a result line starts
# with "ok", "FAIL", "skip" (a check script that could not run here, exit
# status 77: never counted as passed) or "built" (built, not run: never
# counted as passed either), then "[k/N]", the configuration and the test; a
# failure's log tail follows its line. The last line is "N passed, N
# failed", followed by ", N skipped" and ", N built (not run)" when there
# are some; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)

# ---- what we need -----------------------------------------------------------
need_pkgs=()
[ -f /usr/include/stb/stb_ds.h ] || [ -n "${STB_INCLUDE:-}" ] || need_pkgs+=(libstb-dev)
command -v clang >/dev/null 2>&1 || need_pkgs+=(clang)
command -v gcc >/dev/null 2>&1 || need_pkgs+=(gcc)
command -v g++ >/dev/null 2>&1 || need_pkgs+=(g++)
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3) # tests/check_console.sh: tools/ecs_console.py
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "tests/run.sh: installing ${need_pkgs[*]} with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}") >/tmp/ecs-apt.log 2>&1 ||
      { echo "tests/run.sh: apt-get failed (see /tmp/ecs-apt.log); install: ${need_pkgs[*]}"; exit 2; }
  else
    echo "tests/run.sh: missing ${need_pkgs[*]}."
    echo "  Debian/Ubuntu: sudo apt-get install ${need_pkgs[*]}"
    echo "  or point STB_INCLUDE at the folder holding your copy of stb_ds.h"
    exit 2
  fi
fi
STB_INCLUDE=${STB_INCLUDE:-/usr/include/stb}

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
BUILD_DIR_ROOT=${BUILD_DIR_ROOT:-$ROOT/build/tests}
rm -rf "$BUILD_DIR_ROOT"
mkdir -p "$BUILD_DIR_ROOT"
export BUILD_DIR_ROOT STB_INCLUDE ROOT

WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
CLANG_WARN="$WARN -Wdocumentation" # clang: doc comments must match the code they document
# name|compiler|flags|runner; runner: empty (run natively), "qemu-i386" (run
# under it), "binfmt" (run directly, binfmt_misc hands it to qemu) or
# "none:why" (build only)
CONFIGS=(
  "gcc-c99|gcc|-std=c99 -g -O0 $WARN|"
  "clang-c99|clang|-std=c99 -g -O0 $CLANG_WARN|"
  "gcc-cxx11|g++|-x c++ -std=c++11 -g -O1 $WARN|"
  "clang-cxx11|clang++|-x c++ -std=c++11 -g -O0 $CLANG_WARN|"
  "gcc-asan-c99|gcc|-std=c99 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined $WARN|"
  "clang-asan-cxx11|clang++|-x c++ -std=c++11 -g -O0 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined $CLANG_WARN|"
  "gcc-release|gcc|-std=c99 -O2 -DNDEBUG $WARN|"
  "clang-tsan-c99|clang|-std=c99 -g -O1 -fsanitize=thread $CLANG_WARN|"
)
# applies CONFIG-NAME TEST-NAME: whether the configuration builds that test.
# ThreadSanitizer: the threaded tests only. The *_scalar variants (a test
# again on the portable code paths: no SSE, no SIMD verify) build in gcc C99,
# plain and with the sanitizers (-m32's default target has no SSE: its
# builds take the portable paths anyway).
applies() {
  case $1 in
    *-tsan-*) [[ $2 == test_threads* ]] ;;
    gcc-c99 | gcc-asan-c99) true ;;
    *) [[ $2 != *_scalar ]] ;;
  esac
}
MODE=${1:-all}
case $MODE in
  all | quick | m32) ;;
  *) echo "usage: tests/run.sh [quick | m32]"; exit 2 ;;
esac
if [ "$MODE" = quick ]; then CONFIGS=("${CONFIGS[0]}" "${CONFIGS[4]}"); fi

# ---- the 32-bit configuration (not in quick mode) -------------------------------
# Tests that take minutes under qemu-i386 (it emulates floating point in
# software): measured alone, test_transform about 290 s,
# test_transform_chain about 70 s, test_threads 220 s and
# test_resource_schema about 9 minutes (on a busy machine), against 9 s,
# 7 s, 5 s and 7 s natively (build included);
# test_transform_scalar runs test_transform's tests again. Under emulation
# they are built only, except with "tests/run.sh m32".
M32_EMULATION_SLOW="test_transform test_transform_scalar test_transform_chain test_threads test_resource_schema"
M32_RUNNER=""   # stays empty when there is no -m32 configuration
M32_NOTE=""     # why not, for the results
if [ "$MODE" != quick ]; then
  m32_dir=$(mktemp -d)
  m32_builds() {
    printf '#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\nint main(void) { return sizeof(void *) == 4 && sizeof(size_t) == 4 && sqrt(4.0) == 2.0 ? 0 : 1; }\n' >"$m32_dir/probe.c"
    gcc -m32 -std=c99 "$m32_dir/probe.c" -o "$m32_dir/probe" -lm -ldl -lpthread >"$m32_dir/probe.log" 2>&1
  }
  if ! m32_builds; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "tests/run.sh: gcc -m32 cannot build; installing gcc-multilib with apt-get"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-multilib) >/tmp/ecs-apt-m32.log 2>&1 ||
        echo "tests/run.sh: apt-get failed (see /tmp/ecs-apt-m32.log); install gcc-multilib for the -m32 configuration"
    else
      echo "tests/run.sh: gcc -m32 cannot build here."
      echo "  Debian/Ubuntu: sudo apt-get install gcc-multilib (for the -m32 configuration)"
    fi
  fi
  if m32_builds; then
    if "$m32_dir/probe" >/dev/null 2>&1; then
      M32_RUNNER=native
      # a qemu binfmt_misc handler for i386 ELF files means emulation
      for f in /proc/sys/fs/binfmt_misc/*; do
        if grep -qs '^enabled' "$f" && grep -qs '^interpreter .*qemu' "$f" &&
          grep -qs '^magic 7f454c4601010100000000000000000002000300' "$f"; then
          M32_RUNNER=binfmt
        fi
      done
    elif ! command -v qemu-i386 >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      # best effort: without it the i386 programs are built only
      echo "tests/run.sh: this kernel cannot run i386 binaries; installing qemu-user with apt-get"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-user) \
        >/tmp/ecs-apt-qemu.log 2>&1 || echo "tests/run.sh: apt-get failed (see /tmp/ecs-apt-qemu.log)"
    fi
    if [ -n "$M32_RUNNER" ]; then :
    elif command -v qemu-i386 >/dev/null 2>&1 && qemu-i386 "$m32_dir/probe" >/dev/null 2>&1; then
      M32_RUNNER=qemu-i386
    else
      M32_RUNNER="none:this kernel cannot run i386 binaries and qemu-i386 is not installed (Debian: qemu-user)"
    fi
    case $M32_RUNNER in
      native) how="runs natively"; r="" ;;
      qemu-i386) how="runs under qemu-i386 (this kernel cannot run i386 binaries)"; r=$M32_RUNNER ;;
      binfmt) how="runs under qemu (a binfmt_misc handler runs i386 binaries)"; r=$M32_RUNNER ;;
      *) how="built only, NOT run: ${M32_RUNNER#none:}"; r=$M32_RUNNER ;;
    esac
    echo "tests/run.sh: -m32 configuration $how"
    CONFIGS+=("gcc-m32-c99|gcc|-m32 -std=c99 -O2 $WARN|$r")
  else
    M32_NOTE="gcc -m32 cannot build here (install gcc-multilib): no -m32 configuration"
    echo "tests/run.sh: $M32_NOTE"
  fi
  rm -rf "$m32_dir"
  if [ "$MODE" = m32 ]; then
    if [ -z "$M32_RUNNER" ]; then exit 2; fi
    CONFIGS=("${CONFIGS[${#CONFIGS[@]}-1]}")
  fi
fi
export M32_EMULATION_SLOW MODE

# ---- setup scripts ------------------------------------------------------------
for s in tests/setup_*.sh; do
  [ -e "$s" ] || continue
  echo "== $s"
  bash "$s" || { echo "tests/run.sh: $s failed"; exit 1; }
done

# ---- the matrix -----------------------------------------------------------------
# One job = build + run one test program in one configuration; results go to
# $BUILD_DIR_ROOT/results/<config>__<test>.{log,ok,fail}.
mkdir -p "$BUILD_DIR_ROOT/results"
run_one() { # config-line test-file
  local cfg=$1 src=$2 name cc flags runner
  IFS='|' read -r name cc flags runner <<<"$cfg"
  local test; test=$(basename "$src" .c)
  local dir="$BUILD_DIR_ROOT/$name/$test" out="$BUILD_DIR_ROOT/results/${name}__${test}"
  local started=$SECONDS
  mkdir -p "$dir"
  local link="-lm -ldl -lpthread"
  # shellcheck disable=SC2086
  if ! $cc $flags -I"$ROOT" -I"$STB_INCLUDE" "$src" -o "$dir/$test" $link >"$out.log" 2>&1; then
    echo "BUILD FAILED: $cc $flags $src" >>"$out.log"
    touch "$out.fail"; printf 'FAIL\t%s\t%s\n' "$name" "$test"; return
  fi
  local prefix="" limit=600
  case $runner in
    qemu-i386 | binfmt)
      limit=1800
      [ "$runner" = qemu-i386 ] && prefix=qemu-i386
      if [ "$MODE" != m32 ] && [[ " $M32_EMULATION_SLOW " == *" $test "* ]]; then
        runner="none:minutes under qemu emulation; tests/run.sh m32 runs it"
      fi ;;
  esac
  if [ "${runner%%:*}" = none ]; then
    echo "${runner#none:}" >"$out.built"; printf 'built\t%s\t%s\n' "$name" "$test"; return
  fi
  # shellcheck disable=SC2086
  if (cd "$ROOT" && BUILD_DIR="$dir" CC="$cc" CFLAGS_CONFIG="$flags" RUN_PREFIX="$prefix" \
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        timeout $limit $prefix "$dir/$test") >>"$out.log" 2>&1; then
    echo $((SECONDS - started)) >"$out.secs"; touch "$out.ok"; printf 'ok\t%s\t%s\n' "$name" "$test"
  else
    echo "RUN FAILED (exit $?): $prefix $dir/$test" >>"$out.log"
    touch "$out.fail"; printf 'FAIL\t%s\t%s\n' "$name" "$test"
  fi
}
export -f run_one

# A check script as a job of the pool: "ok"/"skip"/"FAIL", "check", the script.
# Exit status 77 means the script could not run here (tests/check_browser.sh
# without a browser): counted as skipped, never as passed.
run_check() { # script
  local s=$1 out rc; out="$BUILD_DIR_ROOT/results/check__$(basename "$1")"
  local started=$SECONDS
  bash "$s" >"$out.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    echo $((SECONDS - started)) >"$out.secs"; touch "$out.ok"; printf 'ok\tcheck\t%s\n' "$(basename "$s")"
  elif [ $rc -eq 77 ]; then
    touch "$out.skip"; printf 'skip\tcheck\t%s\n' "$(basename "$s")"
  else
    touch "$out.fail"; printf 'FAIL\tcheck\t%s\n' "$(basename "$s")"
  fi
}
export -f run_check

# Longest first, so that the pool ends together: the fuzzing and the bench
# check, then the sanitizer builds (the slowest to build and run), the -m32
# ones (slow under emulation), then the rest.
rank_config() {
  case $1 in *-asan-* | *-tsan-*) echo 0 ;; gcc-m32-c99) echo 1 ;; *) echo 2 ;; esac
}
ordered=()
for want in 0 1 2; do
  for cfg in "${CONFIGS[@]}"; do [ "$(rank_config "${cfg%%|*}")" = "$want" ] && ordered+=("$cfg"); done
done
jobs_list=()
if [ "$MODE" != m32 ]; then # the check scripts (fuzz replays, tools) run in the pool
  for s in tests/check_fuzz.sh tests/check_bench.sh tests/check_*.sh; do
    [ -e "$s" ] && [[ " ${jobs_list[*]} " != *"check"$'\t'"$s "* ]] && jobs_list+=("check"$'\t'"$s")
  done
fi
num_checks=${#jobs_list[@]}
for cfg in "${ordered[@]}"; do
  for src in tests/test_*.c; do
    [ -e "$src" ] && applies "${cfg%%|*}" "$(basename "$src" .c)" && jobs_list+=("$cfg"$'\t'"$src")
  done
done
total=${#jobs_list[@]}
echo "== $((total - num_checks)) builds (${#CONFIGS[@]} configurations) and $num_checks check scripts, $JOBS at a time"

passed=0; failed=0; built=0; skipped=0; done_count=0; failures=()
# One line per job, printed by the job as it ends ("status<TAB>config<TAB>test";
# a line this short is written in one piece); counted and shown here.
while IFS=$'\t' read -r status name t; do
  done_count=$((done_count + 1)); r="$BUILD_DIR_ROOT/results/${name}__${t}"
  case $status in
    ok) passed=$((passed + 1))
      if [ "$name" = check ]; then
        echo "ok    [$done_count/$total] tests/$t  ($(tail -1 "$r.log"); $(cat "$r.secs") s)"
      else
        echo "ok    [$done_count/$total] $name $t  ($(grep -E 'passed, [0-9]+ failed' "$r.log" | tail -1); $(cat "$r.secs") s)"
      fi ;;
    built) built=$((built + 1)); echo "built [$done_count/$total] $name $t  (not run: $(cat "$r.built"))" ;;
    skip) skipped=$((skipped + 1)); echo "skip  [$done_count/$total] tests/$t  ($(tail -1 "$r.log"))" ;;
    *) failed=$((failed + 1)); failures+=("$name $t")
      echo "FAIL  [$done_count/$total] $name $t"; tail -n 30 "$r.log" | sed 's/^/      /' ;;
  esac
done < <(printf '%s\n' "${jobs_list[@]}" |
  xargs -P "$JOBS" -d '\n' -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r c s <<<"$1"; if [ "$c" = check ]; then run_check "$s"; else run_one "$c" "$s"; fi' _ {})
# a job that printed nothing (killed) is a failure too
if [ "$done_count" -lt "$total" ]; then
  n=$((total - done_count)); failed=$((failed + n)); done_count=$total
  echo "FAIL  $n jobs reported no result"; failures+=("$n jobs without a result")
fi

[ -n "$M32_NOTE" ] && echo "skip  $M32_NOTE"

[ "$failed" -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
[ "$built" -gt 0 ] && summary="$summary, $built built (not run)"
echo "$summary"
[ "$failed" -eq 0 ]
