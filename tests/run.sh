#!/usr/bin/env bash
# tests/run.sh - builds and runs every test program in every configuration.
#
#   tests/run.sh            all configurations (about 5 minutes on 2 cores)
#   tests/run.sh quick      gcc C99 and the sanitizer build only
#
# Each tests/test_*.c is compiled with gcc and clang, as C99 and as C++11,
# with -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion; again with
# -fsanitize=address,undefined; and once with -O2 -DNDEBUG. Every build+run is
# one test; tests/check_*.sh scripts add one test each. The last line is
# "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)

# ---- what we need -----------------------------------------------------------
need_pkgs=()
[ -f /usr/include/stb/stb_ds.h ] || [ -n "${STB_INCLUDE:-}" ] || need_pkgs+=(libstb-dev)
command -v clang >/dev/null 2>&1 || need_pkgs+=(clang)
command -v gcc >/dev/null 2>&1 || need_pkgs+=(gcc)
command -v g++ >/dev/null 2>&1 || need_pkgs+=(g++)
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
# name|compiler|flags
CONFIGS=(
  "gcc-c99|gcc|-std=c99 -g -O1 $WARN"
  "clang-c99|clang|-std=c99 -g -O1 $WARN"
  "gcc-cxx11|g++|-x c++ -std=c++11 -g -O1 $WARN"
  "clang-cxx11|clang++|-x c++ -std=c++11 -g -O1 $WARN"
  "gcc-asan-c99|gcc|-std=c99 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined $WARN"
  "clang-asan-cxx11|clang++|-x c++ -std=c++11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined $WARN"
  "gcc-release|gcc|-std=c99 -O2 -DNDEBUG $WARN"
)
if [ "${1:-}" = quick ]; then CONFIGS=("${CONFIGS[0]}" "${CONFIGS[4]}"); fi

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
  local cfg=$1 src=$2
  local name=${cfg%%|*} rest=${cfg#*|}
  local cc=${rest%%|*} flags=${rest#*|}
  local test; test=$(basename "$src" .c)
  local dir="$BUILD_DIR_ROOT/$name/$test" out="$BUILD_DIR_ROOT/results/${name}__${test}"
  mkdir -p "$dir"
  local link="-lm -ldl -lpthread"
  # shellcheck disable=SC2086
  if ! $cc $flags -I"$ROOT" -I"$STB_INCLUDE" "$src" -o "$dir/$test" $link >"$out.log" 2>&1; then
    echo "BUILD FAILED: $cc $flags $src" >>"$out.log"
    touch "$out.fail"; return
  fi
  if (cd "$ROOT" && BUILD_DIR="$dir" CC="$cc" CFLAGS_CONFIG="$flags" \
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        timeout 600 "$dir/$test") >>"$out.log" 2>&1; then
    touch "$out.ok"
  else
    echo "RUN FAILED (exit $?): $dir/$test" >>"$out.log"
    touch "$out.fail"
  fi
}
export -f run_one

jobs_list=()
for cfg in "${CONFIGS[@]}"; do
  for src in tests/test_*.c; do
    [ -e "$src" ] && jobs_list+=("$cfg"$'\t'"$src")
  done
done
echo "== ${#jobs_list[@]} builds (${#CONFIGS[@]} configurations), $JOBS at a time"
printf '%s\n' "${jobs_list[@]}" | xargs -P "$JOBS" -d '\n' -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r c s <<<"$1"; run_one "$c" "$s"' _ {}

passed=0; failed=0
for cfg in "${CONFIGS[@]}"; do
  name=${cfg%%|*}
  for src in tests/test_*.c; do
    [ -e "$src" ] || continue
    t=$(basename "$src" .c); r="$BUILD_DIR_ROOT/results/${name}__${t}"
    if [ -e "$r.ok" ]; then
      passed=$((passed + 1)); echo "ok    $name $t  ($(grep -E 'passed, [0-9]+ failed' "$r.log" | tail -1))"
    else
      failed=$((failed + 1)); echo "FAIL  $name $t"; tail -n 30 "$r.log" | sed 's/^/      /'
    fi
  done
done

# ---- check scripts (fuzz replays, tools) ---------------------------------------
for s in tests/check_*.sh; do
  [ -e "$s" ] || continue
  log="$BUILD_DIR_ROOT/results/$(basename "$s" .sh).log"
  if bash "$s" >"$log" 2>&1; then
    passed=$((passed + 1)); echo "ok    $s  ($(tail -1 "$log"))"
  else
    failed=$((failed + 1)); echo "FAIL  $s"; tail -n 30 "$log" | sed 's/^/      /'
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
