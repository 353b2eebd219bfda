#!/usr/bin/env bash
# tests/check_engine.sh - builds the example engine, its plugin and the
# standard level, runs a few frames (with a hot reload in the middle) and
# checks the report: the counts must be what the frames imply.
set -eu
cd "$(dirname "$0")/.."
out=${BUILD_DIR_ROOT:-/tmp}/engine
mkdir -p "$out/plugins" "$out/levels"
STB=${STB_INCLUDE:-/usr/include/stb}
gcc -std=c99 -O1 -g -fsanitize=address,undefined -Wall -Wextra -Wpedantic -Werror -I. -I"$STB" \
  examples/engine.c -o "$out/engine" -lm -ldl -lpthread
gcc -std=c99 -O1 -g -fsanitize=address,undefined,float-cast-overflow -shared -fPIC -I. examples/plugins/spin.c \
  -o "$out/plugins/spin.so"
gcc -O2 examples/gen_level.c -o "$out/gen_level" -lm
"$out/gen_level" 2000 3 >"$out/levels/small.json"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 # a sanitizer report fails the run

frames=9; spawn=5; destroy=3
"$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" --frames $frames --spawn $spawn \
  --destroy $destroy --reload --quiet >"$out/run.log" 2>&1 || { cat "$out/run.log"; exit 1; }
grep -q "spin reloaded" "$out/run.log" || { echo "no reload in the log"; cat "$out/run.log"; exit 1; }

field() { grep "report: when=$1 " "${3:-$out/run.log}" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }
# crates: $spawn each frame; from the second frame on, $destroy of the oldest
alive_crates=$((frames * spawn - (frames - 1) * destroy))
fails=0
expect() { # name start-key end-key per-crate
  local start end want
  start=$(field start "$2"); end=$(field end "$2")
  want=$((start + alive_crates * $3))
  if [ "$end" != "$want" ]; then echo "$1: $end at the end, expected $want"; fails=$((fails + 1)); fi
}
expect "entities alive" entities_alive 2      # a crate and its lid
expect "game transforms" transforms_game 2
expect "meshes" meshes 2
expect "actors" actors 1
[ "$(field end transforms_inventory)" = 1 ] || { echo "inventory world lost the pickaxe"; fails=$((fails + 1)); }
[ "$(field end spins)" = "$(field start spins)" ] && [ "$(field end spins)" -gt 0 ] || { echo "spins changed"; fails=$((fails + 1)); }
[ "$(field end crates_destroyed)" = $(((frames - 1) * destroy)) ] || { echo "wrong crates_destroyed"; fails=$((fails + 1)); }

# --threads 3: the same counts and the same world matrices, bit for bit
"$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" --frames $frames --spawn $spawn \
  --destroy $destroy --reload --quiet --threads 3 >"$out/run3.log" 2>&1 || { cat "$out/run3.log"; exit 1; }
hash() { grep "report: world_hash=" "$1" | cut -d' ' -f2; }
[ -n "$(hash "$out/run.log")" ] && [ "$(hash "$out/run.log")" = "$(hash "$out/run3.log")" ] &&
  [ "$(grep 'report: when=end' "$out/run.log")" = "$(grep 'report: when=end' "$out/run3.log")" ] ||
  { echo "--threads 3 differs from 1 thread"; grep "report: w" "$out/run.log" "$out/run3.log"; fails=$((fails + 1)); }

# bad input: a missing level and a missing plugin folder fail cleanly
if "$out/engine" --level /nonexistent.json --plugins "$out/plugins" --frames 1 >"$out/bad.log" 2>&1; then
  echo "a missing level did not fail"; fails=$((fails + 1)); fi
grep -q "cannot read level" "$out/bad.log" || { echo "no message for a missing level"; fails=$((fails + 1)); }
if "$out/engine" --level "$out/levels/small.json" --plugins /nonexistent --frames 1 >"$out/bad2.log" 2>&1; then
  echo "a missing plugin did not fail"; fails=$((fails + 1)); fi
grep -q "ECS_ERROR_PLUGIN_LOAD" "$out/bad2.log" || { echo "no message for a missing plugin"; fails=$((fails + 1)); }
echo '{"entities": [' >"$out/levels/broken.json"
if "$out/engine" --level "$out/levels/broken.json" --plugins "$out/plugins" --frames 1 >"$out/bad3.log" 2>&1; then
  echo "a broken level did not fail"; fails=$((fails + 1)); fi
grep -q "ECS_ERROR_JSON" "$out/bad3.log" || { echo "no message for a broken level"; fails=$((fails + 1)); }
if "$out/engine" --frames nope >/dev/null 2>&1; then echo "a bad argument did not fail"; fails=$((fails + 1)); fi
if "$out/engine" --threads 0 >/dev/null 2>&1; then echo "--threads 0 did not fail"; fails=$((fails + 1)); fi
rc=0; "$out/engine" --frames 0 >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || { echo "--frames 0: exit $rc, not 2 (refused)"; fails=$((fails + 1)); }
# a level that is a directory or a FIFO: refused before any read (no huge malloc, no blocked open)
rm -f "$out/levels/fifo"; mkfifo "$out/levels/fifo"
for bad in "$out/levels" "$out/levels/fifo"; do
  if timeout 30 "$out/engine" --level "$bad" --plugins "$out/plugins" --frames 1 >"$out/bad4.log" 2>&1; then
    echo "--level $bad did not fail"; fails=$((fails + 1)); fi
  grep -q "cannot read level $bad: not a regular file" "$out/bad4.log" && ! grep -q "Sanitizer" "$out/bad4.log" ||
    { echo "--level $bad: no clean refusal"; cat "$out/bad4.log"; fails=$((fails + 1)); }
done

# --moving PERCENT: that share of the game world's nodes moves (within one node)
for p in 34 51; do
  "$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" --frames 1 --quiet --moving $p \
    >"$out/moving.log" 2>&1 || { cat "$out/moving.log"; fails=$((fails + 1)); }
  n=$(field start transforms_game "$out/moving.log"); m=$(field start movers "$out/moving.log")
  d=$((${m:-0} * 100 - ${n:-0} * p))
  [ -n "$m" ] && [ "${n:-0}" -gt 0 ] && [ $d -gt -100 ] && [ $d -lt 100 ] || { echo "--moving $p: $m movers of $n nodes"; fails=$((fails + 1)); }
done

# spins with a huge angle and speed: the plugin's tick stays defined (float-cast-overflow above)
printf '{"entities": [{"name": "a", "components": [{"type": "transform"}, {"type": "spin", "angle": 1e30}]},
  {"name": "b", "components": [{"type": "transform"}, {"type": "spin", "speed": 1e38}]}]}' >"$out/levels/huge.json"
"$out/engine" --level "$out/levels/small.json" --spin-level "$out/levels/huge.json" --plugins "$out/plugins" \
  --frames 3 --quiet >"$out/huge.log" 2>&1 && [ "$(field end spins "$out/huge.log")" = 2 ] ||
  { echo "spins of a huge angle or speed"; cat "$out/huge.log"; fails=$((fails + 1)); }

# a plain engine's own traffic log replays equal: the loaded state and every frame
"$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" --frames 5 --quiet \
  --log-traffic "$out/plain.traffic" >"$out/plain.log" 2>&1 || { cat "$out/plain.log"; fails=$((fails + 1)); }
"$out/engine" --replay "$out/plain.traffic" --quiet >"$out/replay.log" 2>&1 &&
  grep -q "report: replay records=[0-9]* frames=6 equal=6 first_difference=none end=complete" "$out/replay.log" ||
  { echo "a plain engine's log did not replay equal"; cat "$out/replay.log"; fails=$((fails + 1)); }

# snapshots: saved after frame 6, loaded back over the live world, frames 7-20 run again: every frame's hash equal
"$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" --frames 20 --spawn $spawn --destroy $destroy \
  --quiet --check-snapshot 6 >"$out/snap.log" 2>&1 || { echo "the snapshot check failed"; cat "$out/snap.log"; fails=$((fails + 1)); }
grep -q "report: snapshot_check at=6 bytes=[0-9]* frames=14 equal=14" "$out/snap.log" ||
  { echo "no equal snapshot replay in the log"; fails=$((fails + 1)); }

[ $fails -eq 0 ] || { cat "$out/run.log"; exit 1; }
echo "check_engine: report counts match $frames frames of +$spawn/-$destroy crates; --threads 3 gives the same worlds; a snapshot replays 14 frames equal; a plain traffic log replays 6 states equal; --moving 34/51 move that share; huge spins run clean; bad input fails cleanly"
