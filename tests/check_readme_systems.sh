#!/usr/bin/env bash
# tests/check_readme_systems.sh - the README's systems section is the
# benchmark's code: the ```c block after each marker line
#     <!-- bench/bench.c's NAME, checked by tests/check_readme_systems.sh -->
# (NAME: components, systems) must equal, line for line, the lines of
# bench/bench.c between "/* --- NAME: begin --- */" and "/* --- NAME: end --- */".
# bench/bench.c prints the count of those lines that are not blank or
# comments as systems_7_lines and systems_7_component_lines.
set -u
cd "$(dirname "$0")/.." || exit 2
out=${BUILD_DIR_ROOT:-/tmp}/check_readme_systems
mkdir -p "$out" || exit 2
status=0
for name in components systems; do
  awk -v b="/* --- $name: begin --- */" -v e="/* --- $name: end --- */" '
    $0 == e { on = 0 } on { print } $0 == b { on = 1 }' bench/bench.c >"$out/$name.bench"
  awk -v mark="<!-- bench/bench.c's $name, checked by tests/check_readme_systems.sh -->" '
    $0 == mark { want = 1; next }
    want && /^```c$/ { on = 1; want = 0; next }
    on && /^```$/ { on = 0; next }
    on { print }' README.md >"$out/$name.readme"
  if [ ! -s "$out/$name.bench" ]; then
    echo "check_readme_systems: bench/bench.c has no $name markers"; status=1
  elif ! cmp -s "$out/$name.bench" "$out/$name.readme"; then
    echo "check_readme_systems: README.md's $name block differs from bench/bench.c's:"
    diff "$out/$name.bench" "$out/$name.readme" | head -20
    status=1
  fi
done
[ "$status" = 0 ] && echo "check_readme_systems: README.md's components and systems blocks are bench/bench.c's ($(wc -l <"$out/systems.bench") + $(wc -l <"$out/components.bench") lines)"
exit $status
