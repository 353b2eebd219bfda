#!/usr/bin/env bash
# bench/run.sh - the main job: build and run the benchmark (table on stdout,
# CSV and SVG plot next to each other in build/bench/), then build and run the
# example engine loop with its defaults.
#
#   bench/run.sh            full run: measured 88 s on 2 idle cores (2026-11-27), plot included,
#                           then a few seconds for the engine
#   bench/run.sh --quick    smaller N, fewer repetitions, no plot (smoke test)
set -eu
cd "$(dirname "$0")/.."

if [ ! -f /usr/include/stb/stb_ds.h ] && [ -z "${STB_INCLUDE:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bench/run.sh: installing libstb-dev with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libstb-dev) >/tmp/ecs-apt.log 2>&1 ||
      { echo "bench/run.sh: apt-get failed (see /tmp/ecs-apt.log); install libstb-dev"; exit 2; }
  else
    echo "bench/run.sh: stb_ds.h not found. Debian/Ubuntu: sudo apt-get install libstb-dev"
    echo "  or point STB_INCLUDE at the folder holding your copy of stb_ds.h"
    exit 2
  fi
fi
STB_INCLUDE=${STB_INCLUDE:-/usr/include/stb}
CC=${CC:-cc}
FLAGS="-O2 -DNDEBUG"  # a release build, as the peers were measured
OUT=build/bench
mkdir -p "$OUT"

echo "== building bench/bench.c: $CC $FLAGS"
$CC $FLAGS -DBENCH_FLAGS="\"$CC $FLAGS\"" -I. -I"$STB_INCLUDE" bench/bench.c -o "$OUT/bench" -lm -lpthread
if [ "${1:-}" = --quick ]; then
  "$OUT/bench" --quick --csv-out "$OUT/bench.csv" | tee "$OUT/bench.txt"
else
  "$OUT/bench" --csv-out "$OUT/bench.csv" --plot "$OUT/bench.svg" | tee "$OUT/bench.txt"
fi
echo "bench: table $OUT/bench.txt, csv $OUT/bench.csv${1:+}$( [ "${1:-}" = --quick ] || echo ", plot $OUT/bench.svg")"

echo
echo "== building the example engine, its plugin and the standard level"
mkdir -p build/plugins build/levels
$CC $FLAGS -I. -I"$STB_INCLUDE" examples/engine.c -o build/engine -lm -ldl -lpthread
$CC $FLAGS -shared -fPIC -I. examples/plugins/spin.c -o build/plugins/spin.so
$CC $FLAGS examples/gen_level.c -o build/gen_level -lm
build/gen_level >build/levels/standard.json
echo "== build/engine (defaults: build/levels/standard.json, build/plugins, 120 frames)"
build/engine --quiet
