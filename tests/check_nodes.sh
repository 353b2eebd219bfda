#!/usr/bin/env bash
# tests/check_nodes.sh - examples/engine.c's nodes through real sockets:
# builds the engine (AddressSanitizer + UBSan), its spin plugin and a small
# level, then runs tests/test_nodes.py (three nodes frame by frame, joins,
# leave and rejoin, forwarded spawns, a running server with no log whose
# sender thread writes the deltas while frames, commands and inputs go on,
# a delta that fails on purpose, replays of every log, a cut and a
# corrupt log, refused joins, a fake server's bad states, a port in use,
# inputs across a leave and a join, a held welcome of a closed connection,
# a server's log after an HTTP /api spawn, an argument that is not UTF-8
# with --log-traffic, tools/ecs_traffic.py on bad logs, and tools/scenarios/boxes.py for a few iterations with and without
# faults, and with a divergence it must report); then, built with
# ThreadSanitizer, the three nodes, the slow client and the running server
# again (the server's sender thread: its writes, and its deltas read from
# the world the frame thread changes between them). Then the probe of the
# issue's target (never asserted): a -O2 server on the standard level,
# its mean frame alone and with 3 clients joined (net.stats: wall and CPU
# time, the node steps), printed as bench rows (tests/probe_nodes.py),
# with the clients on any core and again pinned to the last one (the
# server's own cost), and the floor under it: what writing the same bytes to 3 loopback
# clients costs a bare program (tests/probe_sends.c).
# Bounded: every socket call and wait times out, each engine quits after
# --max-seconds, boxes.py kills every node it started, and the whole test
# is killed after 420 s.
set -eu
cd "$(dirname "$0")/.."
out=${BUILD_DIR_ROOT:-/tmp}/nodes
rm -rf "$out"
mkdir -p "$out/plugins" "$out/levels"
STB=${STB_INCLUDE:-/usr/include/stb}
command -v python3 >/dev/null 2>&1 || { echo "check_nodes: python3 is missing (Debian: apt-get install python3)"; exit 1; }
gcc -std=c99 -O1 -g -fsanitize=address,undefined -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion -I. -I"$STB" \
  examples/engine.c -o "$out/engine" -lm -ldl -lpthread
gcc -std=c99 -O1 -g -fsanitize=address,undefined -shared -fPIC -I. examples/plugins/spin.c -o "$out/plugins/spin.so"
gcc -O2 examples/gen_level.c -o "$out/gen_level" -lm
"$out/gen_level" 2000 3 >"$out/levels/small.json"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
timeout -k 5 420 python3 tests/test_nodes.py "$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" \
  --out "$out/run" >"$out/test.log" 2>&1 || { cat "$out/test.log"; echo "check_nodes: tests/test_nodes.py failed"; exit 1; }
result=$(tail -1 "$out/test.log")
# the server's sender thread under ThreadSanitizer: three nodes, and a client that stops reading
mkdir -p "$out/tsan/plugins"
TSAN_CC=$(command -v clang || echo gcc) # run.sh installs clang; gcc has ThreadSanitizer too
"$TSAN_CC" -std=c99 -O1 -g -fsanitize=thread -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion -I. -I"$STB" \
  examples/engine.c -o "$out/tsan/engine" -lm -ldl -lpthread
"$TSAN_CC" -std=c99 -O1 -g -fsanitize=thread -shared -fPIC -I. examples/plugins/spin.c -o "$out/tsan/plugins/spin.so"
TSAN_OPTIONS=halt_on_error=1:exitcode=66 timeout -k 5 240 python3 tests/test_nodes.py "$out/tsan/engine" \
  --level "$out/levels/small.json" --plugins "$out/tsan/plugins" --out "$out/tsan/run" --only three_nodes,slow_client,running_server \
  >"$out/tsan.log" 2>&1 || { cat "$out/tsan.log"; echo "check_nodes: tests/test_nodes.py under ThreadSanitizer failed"; exit 1; }
result="$result; under ThreadSanitizer $(tail -1 "$out/tsan.log")"

# the probe: -O2, the standard level (about 10k entities), not asserted
mkdir -p "$out/o2/plugins"
gcc -std=c99 -O2 -I. -I"$STB" examples/engine.c -o "$out/o2/engine" -lm -ldl -lpthread
gcc -std=c99 -O2 -shared -fPIC -I. examples/plugins/spin.c -o "$out/o2/plugins/spin.so"
"$out/gen_level" >"$out/levels/standard.json"
probe=$(timeout -k 5 120 python3 tests/probe_nodes.py "$out/o2/engine" --level "$out/levels/standard.json" \
  --plugins "$out/o2/plugins" 2>&1) || probe="probe failed: $probe"
echo "$probe" | grep '^|' || true
# again with the clients on the last core only: the server's own cost (its caches not shared with them)
pinned="(not run: taskset or a second core missing)"
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
  pinned=$(timeout -k 5 120 python3 tests/probe_nodes.py "$out/o2/engine" --level "$out/levels/standard.json" \
    --plugins "$out/o2/plugins" --pin-clients $(($(nproc) - 1)) 2>&1) || pinned="probe failed: $pinned"
  echo "$pinned" | grep '^|' | grep 'ratio\|_us ' || true
fi
# the floor under it: the same bytes written to 3 loopback clients by a bare program (tests/probe_sends.c)
bytes=$(echo "$probe" | awk -F'|' '/node_state_bytes_per_client/ {printf "%d", $3}')
gcc -std=c99 -O2 tests/probe_sends.c -o "$out/o2/probe_sends"
timeout -k 5 60 "$out/o2/probe_sends" ${bytes:-75000} 100 || echo "probe_sends failed"
echo "check_nodes: $result; $(echo "$probe" | grep -v '^|' | tail -1); $(echo "$pinned" | grep -v '^|' | tail -1)"
