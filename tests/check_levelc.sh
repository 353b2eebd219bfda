#!/usr/bin/env bash
# tests/check_levelc.sh - builds examples/levelc.c and examples/gen_level.c and
# checks the tools end to end: the standard level compiles, dumps, lists its
# dependencies; big-endian output dumps to the same text; --names writes the
# names block and --dump shows names and paths; --decompile gives JSON that
# compiles back to the same bytes (both byte orders, with and without names,
# every member written or not); a failed compile or decompile leaves the old
# output untouched and no temporary file; --prefab refuses a level; gen_level
# is deterministic; --plugin loads the spin plugin so that its demo level
# compiles, dumps and decompiles, and without it the spin block comes back
# as an unregistered block that compiles to the same bytes; --schema reads
# the game's component types from examples/levels/game.schema.json so that
# its demo level compiles, dumps and decompiles (byte-identical round trip,
# both byte orders), and bad schema files are refused with a message naming
# what is wrong, where (file:line:column) and quoting the file (a member
# twice, as in levels, too).
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${BUILD_DIR_ROOT:-build/tests}/levelc
STB=${STB_INCLUDE:-/usr/include/stb}
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
mkdir -p "$OUT" || exit 2
fail=0
check() { # description, command...
  local what=$1; shift
  if "$@" >>"$OUT/log" 2>&1; then echo "ok    $what"; else echo "FAIL  $what"; fail=$((fail + 1)); fi
}
: >"$OUT/log"
check "build levelc" gcc -std=c99 -O2 $WARN -I. -I"$STB" examples/levelc.c -o "$OUT/levelc" -lm -ldl
check "build the spin plugin" gcc -std=c99 -O2 $WARN -shared -fPIC -I. examples/plugins/spin.c -o "$OUT/spin.so"
check "build gen_level" gcc -std=c99 -O2 $WARN examples/gen_level.c -o "$OUT/gen_level" -lm
[ -x "$OUT/levelc" ] && [ -x "$OUT/gen_level" ] || { echo "check_levelc: build failed"; cat "$OUT/log"; exit 1; }
L="$OUT/levelc"
check "gen_level writes the level" sh -c "'$OUT/gen_level' 3000 5 > '$OUT/level.json'"
check "gen_level is deterministic" sh -c "'$OUT/gen_level' 3000 5 | cmp -s - '$OUT/level.json'"
check "gen_level refuses counts out of range or not numbers (usage, exit 2)" sh -c "for a in 0 4000001 4294967297 10abc -5 ''; do '$OUT/gen_level' \"\$a\" >/dev/null 2>&1; [ \$? -eq 2 ] || exit 1; done; '$OUT/gen_level' 10 1x >/dev/null 2>&1; [ \$? -eq 2 ]"
check "compile" "$L" "$OUT/level.json" "$OUT/level.bin"
check "no temporary file left" test ! -e "$OUT/level.bin.tmp"
check "dump" sh -c "'$L' --dump '$OUT/level.bin' > '$OUT/dump_le.txt' && grep -q '3000 entities, 3 component types' '$OUT/dump_le.txt'"
check "dump shows mesh records" grep -q '"mesh": "#[0-9a-f]*", "flags": [0-3]}' "$OUT/dump_le.txt"
check "deps" sh -c "'$L' --deps '$OUT/level.json' > '$OUT/deps.txt' && [ \$(wc -l < '$OUT/deps.txt') -eq 16 ] && grep -qx models/prop_00 '$OUT/deps.txt'"
check "big-endian compile" "$L" --big-endian "$OUT/level.json" "$OUT/level_be.bin"
check "big-endian blob differs" sh -c "! cmp -s '$OUT/level.bin' '$OUT/level_be.bin'"
check "big-endian dump" sh -c "'$L' --dump '$OUT/level_be.bin' > '$OUT/dump_be.txt'"
check "big-endian dump is the same text" sh -c "tail -n +2 '$OUT/dump_le.txt' > '$OUT/le.body' && tail -n +2 '$OUT/dump_be.txt' > '$OUT/be.body' && cmp -s '$OUT/le.body' '$OUT/be.body' && grep -q 'big-endian' '$OUT/dump_be.txt'"
check "names: compile" "$L" --names "$OUT/level.json" "$OUT/named.bin"
check "names: the block is one more component block" sh -c "'$L' --dump '$OUT/named.bin' > '$OUT/dump_named.txt' && grep -q '3000 entities, 4 component types, names block' '$OUT/dump_named.txt'"
check "names: dump shows entity names and paths" sh -c "grep -q '^     0  root  \"e0\"' '$OUT/dump_named.txt' && grep -q '\"mesh\": \"models/prop_[0-9]*\", \"flags\"' '$OUT/dump_named.txt' && grep -q '^  path models/prop_00  #' '$OUT/dump_named.txt'"
check "names: everything else is the same bytes (the block comes last)" sh -c "cmp -s -n \$(( \$(wc -c < '$OUT/level.bin') - 24 )) -i 24:24 '$OUT/level.bin' '$OUT/named.bin'"
for v in "level.bin:" "level_be.bin:--big-endian" "named.bin:--names"; do
  f=${v%%:*}; flag=${v#*:}
  check "decompile $f" sh -c "'$L' --decompile '$OUT/$f' '$OUT/$f.json' 2> '$OUT/$f.note'"
  check "decompile $f: compiles back to the same bytes" sh -c "'$L' $flag '$OUT/$f.json' '$OUT/$f.again' && cmp -s '$OUT/$f' '$OUT/$f.again'"
  check "decompile $f: every member too" sh -c "'$L' --all-members --decompile '$OUT/$f' > '$OUT/$f.all.json' && '$L' $flag '$OUT/$f.all.json' '$OUT/$f.again' && cmp -s '$OUT/$f' '$OUT/$f.again'"
done
check "decompile says which flags give the bytes back" grep -q 'with --big-endian to get' "$OUT/level_be.bin.note"
check "decompiled names read like the source" sh -c "grep -q '{\"name\": \"e0\", \"components\": \[' '$OUT/named.bin.json' && grep -q '\"position\": \[' '$OUT/named.bin.json' && ! grep -q '\"local\"' '$OUT/named.bin.json'"
printf '{"entities": [{"components": [{"type": "mesh", "mesh": "Models/Crate"}]}]}' >"$OUT/bad.json"
cp "$OUT/level.bin" "$OUT/before.bin"
check "a bad file fails" sh -c "! '$L' '$OUT/bad.json' '$OUT/level.bin' 2> '$OUT/bad.txt'"
check "and says where and how to fix it" grep -q "entities\[0\].components\[0\].mesh (line 1, column 56).*write 'models/crate'" "$OUT/bad.txt"
check "the old output is untouched" cmp -s "$OUT/level.bin" "$OUT/before.bin"
check "no temporary file after a failure" test ! -e "$OUT/level.bin.tmp"
check "--prefab refuses a level" sh -c "! '$L' --prefab '$OUT/level.json' '$OUT/x.bin' 2>/dev/null && test ! -e '$OUT/x.bin'"
check "--dump refuses a broken blob" sh -c "head -c 100 '$OUT/level.bin' > '$OUT/cut.bin'; ! '$L' --dump '$OUT/cut.bin' 2>/dev/null"
cp "$OUT/level.bin.json" "$OUT/dec_before.json"
check "--decompile refuses a broken blob and keeps the old output" sh -c "! '$L' --decompile '$OUT/cut.bin' '$OUT/level.bin.json' 2>/dev/null && cmp -s '$OUT/level.bin.json' '$OUT/dec_before.json' && test ! -e '$OUT/level.bin.json.tmp'"
check "usage errors" sh -c "'$L' --dump '$OUT/level.bin' x 2>/dev/null; [ \$? -eq 2 ] && '$L' --decompile 2>/dev/null; [ \$? -eq 2 ] && '$L' --names --decompile '$OUT/level.bin' 2>/dev/null; [ \$? -eq 2 ]"
check "usage error" sh -c "'$L' 2>/dev/null; [ \$? -eq 2 ]"
S="$OUT/spin.so"
D=examples/levels/spin_demo.json
check "plugin: without it the spin level does not compile" sh -c "! '$L' '$D' '$OUT/spin.bin' 2> '$OUT/nospin.txt' && grep -q \"unknown component type 'spin'\" '$OUT/nospin.txt'"
check "plugin: with it, it compiles" "$L" --plugin "$S" --names "$D" "$OUT/spin.bin"
check "plugin: dump shows the spin records by name" sh -c "'$L' --plugin '$S' --dump '$OUT/spin.bin' > '$OUT/spin_dump.txt' && grep -q 'spin (0x0914D819), 3 instances, 60 bytes' '$OUT/spin_dump.txt' && grep -q 'entity 2 \"fan\": {\"axis\": \[0, 0, 1\], \"speed\": 6.25, \"angle\": 0}' '$OUT/spin_dump.txt'"
check "plugin: decompiles to the source's members" sh -c "'$L' --plugin '$S' --decompile '$OUT/spin.bin' '$OUT/spin.json' 2>/dev/null && grep -q '{\"type\": \"spin\", \"axis\": \[0, 0, 1\], \"speed\": 6.25}' '$OUT/spin.json' && grep -q '\"name\": \"turntable\"' '$OUT/spin.json'"
check "plugin: and compiles back to the same bytes" sh -c "'$L' --plugin '$S' --names '$OUT/spin.json' '$OUT/spin2.bin' && cmp -s '$OUT/spin.bin' '$OUT/spin2.bin'"
check "plugin: big-endian round trip" sh -c "'$L' --plugin '$S' --big-endian '$D' '$OUT/spin_be.bin' && '$L' --plugin '$S' --decompile '$OUT/spin_be.bin' '$OUT/spin_be.json' 2>/dev/null && '$L' --plugin '$S' --big-endian '$OUT/spin_be.json' '$OUT/spin_be2.bin' && cmp -s '$OUT/spin_be.bin' '$OUT/spin_be2.bin'"
check "plugin: without it the block decompiles by identifier" sh -c "'$L' --decompile '$OUT/spin.bin' '$OUT/spin_raw.json' 2>/dev/null && grep -q '{\"type\": \"#0914d819\", \"spawn_order\": ' '$OUT/spin_raw.json'"
check "plugin: and compiles back to the same bytes without it" sh -c "'$L' --names '$OUT/spin_raw.json' '$OUT/spin3.bin' && cmp -s '$OUT/spin.bin' '$OUT/spin3.bin'"
check "plugin: a raw block of a registered type is refused" sh -c "! '$L' --plugin '$S' '$OUT/spin_raw.json' '$OUT/x.bin' 2> '$OUT/raw_err.txt' && grep -q \"is the registered component 'spin'\" '$OUT/raw_err.txt'"
check "plugin: a missing library fails with a message" sh -c "'$L' --plugin '$OUT/nothere.so' '$D' '$OUT/x.bin' 2> '$OUT/noplugin.txt'; [ \$? -eq 1 ] && grep -q 'levelc: plugin' '$OUT/noplugin.txt' && test ! -e '$OUT/x.bin'"
check "plugin: --plugin needs an argument" sh -c "'$L' '$D' --plugin 2>/dev/null; [ \$? -eq 2 ]"
G=examples/levels/game.schema.json
GD=examples/levels/game_demo.json
check "schema: without it the game level does not compile" sh -c "! '$L' '$GD' '$OUT/game.bin' 2> '$OUT/nogame.txt' && grep -q \"unknown component type 'health'\" '$OUT/nogame.txt'"
check "schema: with it, it compiles" "$L" --schema "$G" --names "$GD" "$OUT/game.bin"
check "schema: dump shows the game's records by name" sh -c "'$L' --schema '$G' --dump '$OUT/game.bin' > '$OUT/game_dump.txt' && grep -q 'health (0x[0-9A-F]*), 4 instances, 32 bytes' '$OUT/game_dump.txt' && grep -q '\"hp\": 2500, \"armor\": 0.75' '$OUT/game_dump.txt' && grep -q '\"ship\": \"hull\", \"range\": 40' '$OUT/game_dump.txt'"
check "schema: decompiles to the source's members" sh -c "'$L' --schema '$G' --decompile '$OUT/game.bin' '$OUT/game.json' 2>/dev/null && grep -q '{\"type\": \"team\", \"id\": 2, \"color\": \[0.9, 0.1, 0.1\], \"boss\": true}' '$OUT/game.json' && grep -q '\"barrel\": \"models/long_barrel\"' '$OUT/game.json'"
check "schema: and compiles back to the same bytes" sh -c "'$L' --schema '$G' --names '$OUT/game.json' '$OUT/game2.bin' && cmp -s '$OUT/game.bin' '$OUT/game2.bin'"
check "schema: big-endian round trip" sh -c "'$L' --schema '$G' --big-endian '$GD' '$OUT/game_be.bin' && '$L' --schema '$G' --decompile '$OUT/game_be.bin' '$OUT/game_be.json' 2>/dev/null && '$L' --schema '$G' --big-endian '$OUT/game_be.json' '$OUT/game_be2.bin' && cmp -s '$OUT/game_be.bin' '$OUT/game_be2.bin'"
bad_schema() { # description, schema text, what the message must hold
  printf '%s' "$2" >"$OUT/bad.schema.json"
  check "schema: $1 is refused" sh -c "'$L' --schema '$OUT/bad.schema.json' '$GD' '$OUT/x.bin' 2> '$OUT/bad_schema.txt'; [ \$? -eq 1 ] && test ! -e '$OUT/x.bin' && grep -q \"$3\" '$OUT/bad_schema.txt'"
}
bad_schema "an unknown kind" '{"components": [{"name": "health", "fields": [{"name": "hp", "kind": "int"}]}]}' "components\[0\].fields\[0\].kind: unknown kind.*'int'"
bad_schema "a duplicate field" '{"components": [{"name": "health", "fields": [{"name": "hp", "kind": "i32", "default": 1}, {"name": "hp", "kind": "f32", "default": 1}]}]}' "health.*two fields are called 'hp'"
bad_schema "a default out of bounds" '{"components": [{"name": "health", "fields": [{"name": "hp", "kind": "i32", "default": 50, "max": 10}]}]}' "health.*field 'hp'"
bad_schema "malformed JSON" '{"components": [{"name": "health", "fields": [}]}' "bad.schema.json: line 1, column"
bad_schema "an unknown field member" '{"components": [{"name": "health", "fields": [{"name": "hp", "kind": "i32", "dflt": 1}]}]}' "unknown field member.*'dflt'"
bad_schema "a field member twice" '{"components": [{"name": "prop", "fields": [{"name": "model", "kind": "path", "default": "models/a", "default": "models/b"}]}]}' "bad.schema.json:1:113: components\[0\].fields\[0\].default: a member appears twice: 'default'"
bad_schema "a component member twice" '{"components": [{"name": "prop", "name": "other", "fields": []}]}' "components\[0\].name: a member appears twice: 'name'"
bad_schema "a float default out of range (quoted as written)" '{"components": [{"name": "heat", "fields": [{"name": "t", "kind": "f32", "default": 1e39, "max": 2E+40}]}]}' "bad.schema.json:1:17: component 'heat'.*spec '{.default.: 1e39, .max.: 2E+40}'"
bad_schema "a kind holding a NUL byte" '{"components": [{"name": "health", "fields": [{"name": "hp", "kind": "f32\u0000zz"}]}]}' "components\[0\].fields\[0\].kind: a string holds a NUL byte"
bad_schema "a field name holding a NUL byte" '{"components": [{"name": "health", "fields": [{"name": "hp\u0000x", "kind": "f32"}]}]}' "fields\[0\].name: a string holds a NUL byte"
bad_schema "a component name holding a NUL byte" '{"components": [{"name": "h\u0000p", "fields": []}]}' "components\[0\].name: a string holds a NUL byte"
bad_schema "a member name holding a NUL byte" '{"components": [{"name": "health", "fields": [{"name": "hp", "kind": "f32", "max\u0000imum": 5}]}]}' "a member name holds a NUL byte"
bad_schema "a standard component's name" '{"components": [{"name": "mesh", "fields": [{"name": "hp", "kind": "i32"}]}]}' "'mesh'"
printf '%s' '{"components": [{"name": "sprite", "fields": [{"name": "glyph", "kind": "u8", "default": 64}, {"name": "mode", "kind": "u8", "default": 0, "min": 0, "max": 3}, {"name": "dx", "kind": "i16", "default": 0}]}]}' >"$OUT/sprite.schema.json"
printf '%s' '{"entities": [{"components": [{"type": "sprite", "glyph": 255, "mode": 3, "dx": -32768}]}]}' >"$OUT/sprite.json"
printf '%s' '{"entities": [{"components": [{"type": "sprite", "mode": 4}]}]}' >"$OUT/sprite_bad.json"
check "schema: u8 and i16 kinds compile and decompile" sh -c "'$L' --schema '$OUT/sprite.schema.json' '$OUT/sprite.json' '$OUT/sprite.bin' && '$L' --schema '$OUT/sprite.schema.json' --decompile '$OUT/sprite.bin' 2>/dev/null | grep -q '\"glyph\": 255, \"mode\": 3, \"dx\": -32768'"
check "schema: a u8 enum out of its max is refused where it is" sh -c "! '$L' --schema '$OUT/sprite.schema.json' '$OUT/sprite_bad.json' '$OUT/x.bin' 2> '$OUT/sprite_err.txt' && grep -q 'mode (line 1, column 58): mode must be <= 3 (found 4)' '$OUT/sprite_err.txt'"
check "schema: a missing file fails with a message" sh -c "'$L' --schema '$OUT/nothere.json' '$GD' '$OUT/x.bin' 2> '$OUT/noschema.txt'; [ \$? -eq 1 ] && grep -q 'cannot read' '$OUT/noschema.txt'"
check "schema: --schema needs an argument" sh -c "'$L' '$GD' --schema 2>/dev/null; [ \$? -eq 2 ]"
SN=tests/corpus/fuzz_snapshot
check "--snapshot-dump prints a snapshot as JSON" sh -c "'$L' --snapshot-dump '$SN/world_60.bin' > '$OUT/snap.json' && grep -q '\"name\": \"health\", \"lookup\": \"hash\"' '$OUT/snap.json' && grep -q '\"max_index\": 11' '$OUT/snap.json'"
check "--snapshot-dump reads the other byte order" sh -c "'$L' --snapshot-dump '$SN/world_be.bin' | grep -q '\"name\": \"transform\", \"version\": 1'"
check "--snapshot-dump refuses a broken snapshot" sh -c "head -c 100 '$SN/world_60.bin' > '$OUT/cut.snap'; '$L' --snapshot-dump '$OUT/cut.snap' > /dev/null 2> '$OUT/snap_err.txt'; [ \$? -eq 1 ] && grep -q 'offset' '$OUT/snap_err.txt'"
if [ "$fail" -ne 0 ]; then tail -n 20 "$OUT/log"; echo "check_levelc: $fail failed"; exit 1; fi
echo "check_levelc: levelc and gen_level work"
