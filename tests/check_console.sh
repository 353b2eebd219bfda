#!/usr/bin/env bash
# tests/check_console.sh - the development console through the real socket:
# builds examples/engine.c (AddressSanitizer + UBSan) with its spin plugin
# and a small level, then runs tests/test_console.py, which starts engines
# with --console 0 through tools/ecs_console.py's Node and drives every
# command (see its header). Python 3 standard library only. Bounded: the
# test's sockets time out, each engine quits after --max-seconds, and the
# whole run is killed after 180 s.
set -eu
cd "$(dirname "$0")/.."
out=${BUILD_DIR_ROOT:-/tmp}/console
mkdir -p "$out/plugins" "$out/levels"
STB=${STB_INCLUDE:-/usr/include/stb}
command -v python3 >/dev/null 2>&1 || { echo "check_console: python3 is missing (Debian: apt-get install python3)"; exit 1; }
python3 tools/embed_page.py --check # the page the engine serves is examples/inspector.html as it stands
gcc -std=c99 -O1 -g -fsanitize=address,undefined -Wall -Wextra -Wpedantic -Werror -I. -I"$STB" \
  examples/engine.c -o "$out/engine" -lm -ldl -lpthread
gcc -std=c99 -O1 -g -fsanitize=address,undefined -shared -fPIC -I. examples/plugins/spin.c -o "$out/plugins/spin.so"
gcc -O2 examples/gen_level.c -o "$out/gen_level" -lm
"$out/gen_level" 2000 3 >"$out/levels/small.json"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
timeout -k 5 180 python3 tests/test_console.py "$out/engine" --level "$out/levels/small.json" --plugins "$out/plugins" \
  >"$out/test.log" 2>&1 || { cat "$out/test.log"; echo "check_console: tests/test_console.py failed"; exit 1; }
tail -1 "$out/test.log"
