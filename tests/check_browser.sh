#!/usr/bin/env bash
# tests/check_browser.sh - the inspector page in a real browser: builds examples/engine.c (-O2: the
# timings it prints are the engine's, not a sanitizer's) with its spin plugin and a small level, then
# runs tests/test_inspector.js, which drives Debian's chromium through npm's puppeteer-core (see its
# header for what it checks). The screenshot goes next to the test's output:
# $BUILD_DIR_ROOT/browser/inspector.png (and inspector_1e6.png).
#
# What it needs, installed when missing (as root, with apt-get and npm): chromium, nodejs and npm
# (Debian's packages), and puppeteer-core 24 (npm, into build/browser/node_modules: never committed).
# When one cannot be installed the check reports itself SKIPPED (exit status 77, which tests/run.sh
# counts as skipped, never as passed) and says what to install. Bounded: npm and apt-get get 10 and 15
# minutes, the test stops itself after 240 s and is killed after 300 s.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
out=${BUILD_DIR_ROOT:-/tmp}/browser
mkdir -p "$out/plugins" "$out/levels"
STB=${STB_INCLUDE:-/usr/include/stb}
MODULES_DIR=${BROWSER_DIR:-$ROOT/build/browser}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
skip() {
  echo "check_browser: SKIPPED: $*"
  exit 77
}

# ---- what it needs --------------------------------------------------------------------------------
node_ok() { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
  [ "$(node -e 'console.log(+process.versions.node.split(".")[0] >= 18 ? 1 : 0)' 2>/dev/null)" = 1 ]; }
pkgs=()
[ -x "$CHROMIUM" ] || pkgs+=(chromium)
node_ok || { command -v node >/dev/null 2>&1 || pkgs+=(nodejs); command -v npm >/dev/null 2>&1 || pkgs+=(npm); }
if [ ${#pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check_browser: installing ${pkgs[*]} with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq "${pkgs[@]}") \
      >"$out/apt.log" 2>&1 || skip "apt-get could not install ${pkgs[*]} (see $out/apt.log)"
  else
    skip "missing ${pkgs[*]} (Debian: sudo apt-get install ${pkgs[*]})"
  fi
fi
[ -x "$CHROMIUM" ] || skip "$CHROMIUM is missing (Debian: apt-get install chromium)"
node_ok || skip "node 18 or newer and npm are needed (Debian: apt-get install nodejs npm)"
if [ ! -f "$MODULES_DIR/node_modules/puppeteer-core/package.json" ]; then
  mkdir -p "$MODULES_DIR"
  [ -f "$MODULES_DIR/package.json" ] || echo '{"name": "ecs-inspector-browser-test", "private": true}' >"$MODULES_DIR/package.json"
  echo "check_browser: npm install puppeteer-core@24 into $MODULES_DIR"
  (cd "$MODULES_DIR" && timeout 600 npm install --no-audit --no-fund --loglevel=error puppeteer-core@24) >"$out/npm.log" 2>&1 ||
    skip "npm could not install puppeteer-core (see $out/npm.log)"
fi

# ---- build, run -----------------------------------------------------------------------------------
set -e
python3 tools/embed_page.py --check # the engine serves the page it embeds: the one in examples/
gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -I. -I"$STB" examples/engine.c -o "$out/engine" -lm -ldl -lpthread
gcc -std=c99 -O2 -shared -fPIC -I. examples/plugins/spin.c -o "$out/plugins/spin.so"
gcc -O2 examples/gen_level.c -o "$out/gen_level" -lm
"$out/gen_level" 2000 3 >"$out/levels/small.json"
set +e
BROWSER_MODULES="$MODULES_DIR/node_modules" timeout -k 5 300 node tests/test_inspector.js "$out/engine" "$out" -- \
  --level "$out/levels/small.json" --plugins "$out/plugins" >"$out/test.log" 2>&1
rc=$?
grep '^inspector: ' "$out/test.log"
if [ $rc -ne 0 ]; then
  cat "$out/test.log"
  echo "check_browser: tests/test_inspector.js failed (exit $rc)"
  exit 1
fi
tail -1 "$out/test.log"
