#!/usr/bin/env bash
# tests/check_code_shape.sh - the code-shape rules of the headers that a
# compiler does not check:
#   - every function of every header (ecs*.h) is at most 80 lines, counted
#     from the line its signature starts on to its closing brace (what
#     `ctags --fields=+ne --c-kinds=f --language-force=C` reports as line and
#     end; the awk below finds the same functions without ctags: a signature
#     at column 0, "{" and "}" alone at column 0);
#   - every header's version line ("ecs.h - v0.5 - ...") names the newest
#     entry of its REVISION HISTORY, and ecs.h's ECS_VERSION_MAJOR/_MINOR
#     agree;
#   - no message shows an entity in hexadecimal ("entity 0x%08X"): they use
#     ecs_entity_format ("entity 11 (index 11, generation 0)", see ecs.h's
#     ERRORS).
set -u
cd "$(dirname "$0")/.." || exit 2
MAX_LINES=80
fail=0
headers=$(ls ecs*.h)

# shellcheck disable=SC2086
long=$(awk -v max=$MAX_LINES '
  FNR == 1 { infn = 0 }
  /^[A-Za-z_]/ && !infn { top = FNR; sig = $0 }
  /^\{[ \t]*$/ && !infn { infn = 1; start = top; name = sig; next }
  /^\}[ \t]*$/ && infn {
    infn = 0; n = FNR - start + 1; count++
    sub(/\(.*/, "", name); k = split(name, w, /[ \t*]+/)
    if (n > max) printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME, start, w[k], n, max
  }
  END { printf "%d functions\n", count }' $headers)
count=$(printf '%s\n' "$long" | tail -1)
long=$(printf '%s\n' "$long" | sed '$d')
if [ -n "$long" ]; then
  echo "check_code_shape: functions over $MAX_LINES lines:"; printf '%s\n' "$long"; fail=1
fi
if [ "${count%% *}" -lt 500 ]; then # the headers hold far more: the awk no longer sees them
  echo "check_code_shape: only $count found; the function finder needs updating"; fail=1
fi

for h in $headers; do
  line=$(sed -n '1s/.* - v\([0-9][0-9]*\.[0-9][0-9]*\) - .*/\1/p' "$h")
  newest=$(awk '/^REVISION HISTORY/ { getline; if (match($0, /[0-9]+\.[0-9]+/)) print substr($0, RSTART, RLENGTH); exit }' "$h")
  if [ -z "$line" ] || [ -z "$newest" ]; then
    echo "check_code_shape: $h: no version line (- vX.Y -) or no REVISION HISTORY entry"; fail=1
  elif [ "$line" != "$newest" ]; then
    echo "check_code_shape: $h says v$line, its REVISION HISTORY's newest entry is $newest"; fail=1
  fi
done
macro=$(awk '/#define ECS_VERSION_MAJOR/ { a = $3 } /#define ECS_VERSION_MINOR/ { b = $3 } END { print a "." b }' ecs.h)
ecs_line=$(sed -n '1s/.* - v\([0-9.]*\) - .*/\1/p' ecs.h)
if [ "$macro" != "$ecs_line" ]; then
  echo "check_code_shape: ecs.h: ECS_VERSION_MAJOR.MINOR is $macro, the version line v$ecs_line"; fail=1
fi

# shellcheck disable=SC2086
hex=$(grep -nE '(entity|root|id) 0x%0?8?[xX]' $headers)
if [ -n "$hex" ]; then
  echo "check_code_shape: messages that show an entity in hexadecimal (use ecs_entity_format):"
  printf '%s\n' "$hex"; fail=1
fi

[ "$fail" -eq 0 ] || exit 1
echo "check_code_shape: ${count%% *} functions, none over $MAX_LINES lines; version lines match their histories; entities in messages as ecs_entity_format writes them"
