#!/usr/bin/env bash
# tests/check_deps.sh - the dependency checker end to end (levelc deps, refs,
# rename; DESIGN §13) on copies of examples/deps_project:
#  - the sample is clean (exit 0), --unused lists exactly its one orphan,
#    refs lists exactly who refers to the rose;
#  - a project with known broken, non-canonical (one outside the project),
#    unused and cyclic references: exactly those lines, in file, line,
#    column order, and exit 1; unreadable sources (not JSON, not UTF-8) and
#    two names differing only in case: errors naming the files, exit 1, the
#    rest still checked;
#  - rename round trips (a texture and its variants; a folder of prefabs,
#    moved sources patched too): byte-identical project after A -> B -> A;
#    after a rename the levels compile to blobs holding the new path's hash
#    and not the old one's, and deps reports nothing broken; --dry-run
#    changes nothing;
#  - a rename moves a file named exactly OLD and OLD.X (a resource and a
#    variant of OLD) with its variants, and references to OLD.X become
#    NEW.X (and refs OLD lists them): nothing broken after, byte-identical
#    after A -> B -> A;
#  - refs lists and counts what rename patches; a non-canonical reference
#    comes after, marked not patched;
#  - refusals with the project byte-identical: the target exists (the
#    resource, a variant only, a file NEW.*, a file half way through the moves), a
#    name or a folder differing only in case, a new name too long (a variant's,
#    a reference's), a read-only file, a source to patch that is a symbolic
#    link, a source that cannot be read, non-canonical arguments;
#  - all or nothing: every file-system change of a rename failing in turn
#    (LEVELC_FAIL_AT=N) leaves the project byte-identical, no temporary
#    behind; SIGTERM after each rename of the commit (LEVELC_SIGNAL_AT=N)
#    leaves it fully renamed or as it was, no temporary behind;
#  - the cache: a warm check parses no source; a file edited, deleted,
#    added or renamed outside the tool is noticed; a source that could not
#    be read is read again next time (its error is not cached as trusted); a corrupt, truncated or
#    foreign cache is rebuilt with a note and the same findings; another
#    --plugin of the same name, size and mtime is another configuration.
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${BUILD_DIR_ROOT:-$PWD/build/tests}/deps
STB=${STB_INCLUDE:-/usr/include/stb}
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
rm -rf "$OUT" && mkdir -p "$OUT" || exit 2
fail=0
check() { # description, command...
  local what=$1; shift
  if "$@" >>"$OUT/log" 2>&1; then echo "ok    $what"; else echo "FAIL  $what"; fail=$((fail + 1)); fi
}
: >"$OUT/log"
check "build levelc" gcc -std=c99 -O1 -g $WARN -fsanitize=address,undefined -fno-sanitize-recover=undefined -I. -I"$STB" \
  examples/levelc.c -o "$OUT/levelc" -lm -ldl
[ -x "$OUT/levelc" ] || { echo "check_deps: build failed"; cat "$OUT/log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$OUT" || exit 2
ROOT=$(cd - >/dev/null && pwd)
SAMPLE=$ROOT/examples/deps_project
L() { ./levelc --schema "$SAMPLE/game.schema.json" "$@"; }
fresh() { rm -rf "$1" && cp -r "$SAMPLE" "$1" && rm -f "$1/.ecs-deps"; }
same() { diff -r -x .ecs-deps "$1" "$2"; }  # every file, hidden ones too (temporaries would show)
expect() { # expected-file command... : stdout exactly as expected
  local want=$1; shift
  "$@" >got.txt 2>got.err
  diff -u "$want" got.txt
}
status_is() { # N command...
  local want=$1; shift
  "$@" >/dev/null 2>&1
  [ $? -eq "$want" ]
}

# ---- the sample project ---------------------------------------------------------
fresh s
printf '5 sources, 16 references, 0 broken\n' >want_clean.txt
check "sample: clean, exit 0" expect want_clean.txt L deps s
printf 'models/old_crate: unused\n5 sources, 16 references, 0 broken\n' >want_unused.txt
check "sample: --unused lists its one orphan" expect want_unused.txt L deps s --unused
cat >want_refs.txt <<'EOF'
s/levels/garden.json:16:41: 'textures/flowers/rose'
s/prefabs/flower_pot.json:15:45: 'textures/flowers/rose'
2 references in 2 files
EOF
check "sample: refs" expect want_refs.txt L refs s textures/flowers/rose
cat >want_refs_folder.txt <<'EOF'
s/levels/garden.json:23:39: 'prefabs/flower_pot'
s/levels/harbor.json:14:43: 'prefabs/crate'
s/levels/harbor.json:23:39: 'prefabs/ship'
s/prefabs/ship.json:15:43: 'prefabs/crate'
4 references in 3 files
EOF
check "sample: refs of a folder" expect want_refs_folder.txt L refs s prefabs
check "sample: the cache file is written" test -s s/.ecs-deps

# ---- known findings -----------------------------------------------------------------
fresh b
sed -i 's|"models/dock"|"models/dok"|; s|"prefabs/ship"|"Prefabs/Ship"|' b/levels/harbor.json
sed -i 's|"textures/flowers/rose", "tint"|"../outside/rose", "tint"|' b/levels/garden.json
sed -i 's|"models/pot"|"zzz/qqqqqqqqq"|' b/prefabs/flower_pot.json
sed -i 's|{"type": "mesh", "mesh": "models/crate"},|{"type": "mesh", "mesh": "models/crate"}, {"type": "spawner", "prefab": "prefabs/ship"},|' \
  b/prefabs/crate.json
cat >want_broken.txt <<'EOF'
b/levels/garden.json:16:41: non-canonical path '../outside/rose' (canonical '')
b/levels/harbor.json:7:34: broken reference 'models/dok' (nearest: 'models/dock', 'models/pot')
b/levels/harbor.json:23:39: non-canonical path 'Prefabs/Ship' (canonical 'prefabs/ship')
b/prefabs/flower_pot.json:7:34: broken reference 'zzz/qqqqqqqqq'
models/dock: unused
models/old_crate: unused
models/pot: unused
cycle: prefabs/crate -> prefabs/ship -> prefabs/crate
5 sources, 17 references, 4 broken
EOF
check "known findings: exactly these lines" expect want_broken.txt L deps b --unused
check "known findings: exit 1" status_is 1 L deps b
check "known findings: the same from the cache" expect want_broken.txt L deps b --unused
grep -v ': unused$' want_broken.txt >want_broken_nounused.txt
check "known findings: without --unused" expect want_broken_nounused.txt L deps b

# refs lists what rename patches: a non-canonical reference comes after, marked, not counted
fresh nc
sed -i 's|"textures/flowers/rose"|"Textures/Flowers/Rose"|' nc/prefabs/flower_pot.json
cat >want_refs_nc.txt <<'EOF'
nc/levels/garden.json:16:41: 'textures/flowers/rose'
1 references in 1 files
nc/prefabs/flower_pot.json:15:45: 'Textures/Flowers/Rose': not canonical, not patched by rename (fix it first)
EOF
check "refs: a non-canonical reference is not counted, marked not patched" expect want_refs_nc.txt L refs nc textures/flowers/rose
check "refs: rename patches what refs counts" sh -c "./levelc --schema '$SAMPLE/game.schema.json' rename nc textures/flowers/rose textures/r2 --dry-run | grep -qx '3 files to move, 1 references in 1 files to patch (dry run)'"

fresh e
printf '{"entities": [' >e/prefabs/bad.json
printf '{"entities": [{"name": "\xff"}]}' >e/prefabs/latin1.json
printf 'x\n' >e/models/Crate.mesh
sed -i 's|"models/dock"|"models/dok"|' e/levels/harbor.json
L deps e >e.out 2>e.err; st=$?
check "bad sources: exit 1" test $st -eq 1
check "bad sources: not JSON, named with line and column" grep -q '^levelc: e/prefabs/bad.json: line 1, column 15: ' e.err
check "bad sources: not UTF-8, named" grep -q '^levelc: e/prefabs/latin1.json: .*UTF-8' e.err
check "bad sources: names differing only in case, both named" grep -q "e/models/Crate.mesh and e/models/crate.mesh: names differ only in case" e.err
check "bad sources: the rest is still checked" sh -c "grep -q \"^e/levels/harbor.json:7:34: broken reference 'models/dok'\" e.out && grep -q '^7 sources, 16 references, 1 broken$' e.out"
check "bad sources: rename refused, nothing changed" sh -c "cp -r e e_before && ! L_=1 ./levelc --schema '$SAMPLE/game.schema.json' rename e models/hull models/keel 2>e.rename.err && diff -r -x .ecs-deps e e_before && grep -q 'rename refused: the project has errors' e.rename.err"
check "deps of a missing folder: exit 1, named" sh -c "! ./levelc deps no_such_project 2>m.err && grep -q 'no_such_project: not a project folder' m.err"

# ---- rename round trips ------------------------------------------------------------------
fresh r && cp -r r r0
cat >want_dry.txt <<'EOF'
move r/textures/flowers/rose.dds -> r/textures/flowers/less-sweet-rose.dds
move r/textures/flowers/rose.fr.dds -> r/textures/flowers/less-sweet-rose.fr.dds
move r/textures/flowers/rose.ps4.dds -> r/textures/flowers/less-sweet-rose.ps4.dds
r/levels/garden.json:16:41: 'textures/flowers/rose' -> 'textures/flowers/less-sweet-rose'
r/prefabs/flower_pot.json:15:45: 'textures/flowers/rose' -> 'textures/flowers/less-sweet-rose'
3 files to move, 2 references in 2 files to patch (dry run)
EOF
check "rename --dry-run: the plan" expect want_dry.txt L rename r textures/flowers/rose textures/flowers/less-sweet-rose --dry-run
check "rename --dry-run: nothing changed" same r r0
check "rename a texture and its variants" L rename r textures/flowers/rose textures/flowers/less-sweet-rose
check "rename: files moved, references patched" sh -c "test -f r/textures/flowers/less-sweet-rose.fr.dds && test ! -e r/textures/flowers/rose.dds && grep -q '\"textures/flowers/less-sweet-rose\", \"tint\"' r/levels/garden.json"
check "rename: only the reference strings changed" sh -c "sed 's|textures/flowers/less-sweet-rose|textures/flowers/rose|' r/levels/garden.json | cmp -s - r0/levels/garden.json"
check "rename: deps finds nothing broken" expect want_clean.txt L deps r
L refs r textures/flowers/rose >refs_old.txt 2>&1
check "rename: refs of the old path: none" grep -qx '0 references in 0 files' refs_old.txt
# the compiled level holds the new path's hash, not the old one's
printf '{"entities": [{"components": [{"type": "material", "texture": "%s"}]}]}\n' textures/flowers/less-sweet-rose >probe_new.json
printf '{"entities": [{"components": [{"type": "material", "texture": "%s"}]}]}\n' textures/flowers/rose >probe_old.json
hash_of() { L "$1" "$1.bin" && L --dump "$1.bin" | grep -o '"texture": "#[0-9a-f]*"' | head -1; }
new_hash=$(hash_of probe_new.json); old_hash=$(hash_of probe_old.json)
check "rename: the two paths hash differently" test -n "$new_hash" -a -n "$old_hash" -a "$new_hash" != "$old_hash"
for src in levels/garden levels/harbor prefabs/crate prefabs/flower_pot prefabs/ship; do
  check "rename: $src compiles" L r/$src.json "$(basename $src).bin"
done
check "rename: the flower pot prefab holds the new hash, not the old" sh -c "./levelc --schema '$SAMPLE/game.schema.json' --dump flower_pot.bin > pot.dump && grep -qF '$new_hash' pot.dump && ! grep -qF '$old_hash' pot.dump"
check "rename: the garden blob holds the new hash, not the old" sh -c "./levelc --schema '$SAMPLE/game.schema.json' --dump garden.bin > garden.dump && grep -qF '$new_hash' garden.dump && ! grep -qF '$old_hash' garden.dump"
check "rename back: byte-identical project" sh -c "./levelc --schema '$SAMPLE/game.schema.json' rename r textures/flowers/less-sweet-rose textures/flowers/rose >/dev/null && diff -r -x .ecs-deps r r0"
check "rename a folder (moved sources patched too)" L rename r prefabs props/kit
check "folder rename: deps finds nothing broken" expect want_clean.txt L deps r
check "folder rename: prefabs/ is gone, props/kit/ship.json patched" sh -c "test ! -e r/prefabs && grep -q '\"props/kit/crate\"' r/props/kit/ship.json"
check "folder rename back: byte-identical project (empty folders removed)" sh -c "./levelc --schema '$SAMPLE/game.schema.json' rename r props/kit prefabs >/dev/null && diff -r -x .ecs-deps r r0 && test ! -e r/props"

# ---- what a rename moves: a file named exactly OLD, OLD.X (a resource and a variant) ------
fresh v && mv v/models/hull.mesh v/models/hull
cp v/models/crate.mesh v/models/hull.v2.mesh && printf 'x\n' >v/models/hull.v2.fr.mesh
sed -i 's|"models/dock"|"models/hull.v2"|' v/levels/harbor.json
cp -r v v0
check "names: a file named exactly OLD and a resource OLD.X: clean" expect want_clean.txt L deps v
check "names: refs of OLD lists the reference to OLD.X (what rename patches)" sh -c "./levelc --schema '$SAMPLE/game.schema.json' refs v models/hull | grep -q \"harbor.json:.*'models/hull.v2'\""
check "names: rename moves OLD, OLD.X and OLD.X's variant" sh -c "./levelc --schema '$SAMPLE/game.schema.json' rename v models/hull models/keel >/dev/null && test -f v/models/keel -a -f v/models/keel.v2.mesh -a -f v/models/keel.v2.fr.mesh && ! ls v/models | grep -q hull"
check "names: references to OLD.X become NEW.X" grep -q '"models/keel.v2"' v/levels/harbor.json
check "names: deps finds nothing broken after the rename" expect want_clean.txt L deps v
check "names: rename back: byte-identical project" sh -c "./levelc --schema '$SAMPLE/game.schema.json' rename v models/keel models/hull >/dev/null && diff -r -x .ecs-deps v v0"
printf 'x\n' >v/models/keel.a.b.mesh && cp v/models/keel.a.b.mesh v0/models/
check "names: refused when a file NEW.* exists, named, nothing changed" sh -c "! ./levelc --schema '$SAMPLE/game.schema.json' rename v models/hull models/keel 2>names.err && diff -r -x .ecs-deps v v0 && grep -q 'v/models/keel.a.b.mesh exists' names.err"

# ---- a new name too long for a variant or a reference: refused, nothing written ------------
rm -rf lv lv0 && mkdir -p lv/levels && printf 'm\n' >lv/a.mesh
V=$(printf 'v%.0s' $(seq 200)) SEG=$(printf 'n%.0s' $(seq 240)) LONG=
for i in $(seq 16); do LONG="$LONG$SEG/"; done
LONG="$LONG${SEG:0:$((3950 - ${#LONG}))}"   # 3950 bytes: a.mesh's new name fits, a.$V.mesh's does not
printf 'm\n' >"lv/a.$V.mesh"
printf '{"entities": [{"components": [{"type": "mesh", "mesh": "a"}, {"type": "mesh", "mesh": "a.%s"}]}]}\n' "$V" >lv/levels/l.json
cp -r lv lv0
check "long name: a variant's new name too long: refused, named, nothing changed" sh -c "! ./levelc rename lv a '$LONG' 2>long.err && diff -r -x .ecs-deps lv lv0 && grep -q '^levelc: rename refused: lv/a.$V.mesh: new name too long' long.err"
rm "lv/a.$V.mesh" "lv0/a.$V.mesh"
check "long name: a reference's new name too long: refused, named, nothing changed" sh -c "! ./levelc rename lv a '$LONG' 2>long.err && diff -r -x .ecs-deps lv lv0 && grep -q \"^levelc: rename refused: lv/levels/l.json:1:[0-9]*: 'a.$V': new name too long\" long.err"

# ---- refusals: the project as it was ------------------------------------------------------
refused() { # what, args... : exit 1 and nothing changed
  local what=$1; shift
  check "refused: $what" sh -c "! ./levelc --schema '$SAMPLE/game.schema.json' rename r $* 2>refusal.err && diff -r -x .ecs-deps r r0"
}
refused "onto an existing resource" models/crate models/hull
printf 'x\n' >r/textures/oak.ps4.dds && cp r/textures/oak.ps4.dds r0/textures/
refused "onto a resource that has a variant only" textures/wood textures/oak
check "refused: the message names what exists" grep -q "'textures/oak' exists" refusal.err
printf 'x\n' >r/textures/pine.fr.dds && cp r/textures/pine.fr.dds r0/textures/
refused "half way: the second move's target exists" textures/wood textures/pine
printf 'x\n' >r/models/Keel.mesh && cp r/models/Keel.mesh r0/models/
refused "a target differing only in case from a file" models/hull models/keel
rm r/models/Keel.mesh r0/models/Keel.mesh
refused "an old path that is not canonical" Textures/Wood textures/oak2
refused "a new path outside the project" textures/wood ../wood
refused "a name nothing has" textures/nothing textures/oak2
refused "a folder into itself" prefabs prefabs/old
printf 'x\n' >r/models/Crate2.png && cp r/models/Crate2.png r0/models/
refused "a new name differing only in case from a resource" models/old_crate models/crate2
check "refused: the resource differing in case is named" grep -q "r/models/Crate2.png differs only in case from 'models/crate2'" refusal.err
rm r/models/Crate2.png r0/models/Crate2.png
mkdir r/Models2 r0/Models2 && printf 'x\n' >r/Models2/x.mesh && cp r/Models2/x.mesh r0/Models2/
refused "a folder of the new name differing only in case from a folder" models/old_crate models2/old_crate
check "refused: the folder differing in case is named" grep -q "the folder r/Models2 differs only in case from 'models2'" refusal.err
rm -r r/Models2 r0/Models2
mkdir -p outside && mv r/prefabs/ship.json outside/ship.json && ln -s "$PWD/outside/ship.json" r/prefabs/ship.json
refused "a source to patch that is a symbolic link" prefabs/crate prefabs/box
check "refused: the link is named, it and its target as they were" sh -c "grep -q 'r/prefabs/ship.json is a symbolic link' refusal.err && test -L r/prefabs/ship.json && cmp -s outside/ship.json r0/prefabs/ship.json"
rm r/prefabs/ship.json && mv outside/ship.json r/prefabs/ship.json
chmod a-w r/levels/garden.json
refused "a read-only file to patch" textures/flowers/rose textures/rose2
check "refused: the read-only file is named" grep -q 'r/levels/garden.json is read-only' refusal.err
chmod u+w r/levels/garden.json

# ---- all or nothing: every change failing in turn -------------------------------------------
in_turn() { # VAR PREPARE WHOLE DIR: for N = 1, 2, ...: PREPARE, then levelc rename DIR prefabs
  # props/kit with VAR=N, until it succeeds; after each stopped run WHOLE STATUS must hold.
  # The stopped runs are counted in $stops.
  local var=$1 prepare=$2 whole=$3 dir=$4 n=1 st
  stops=0
  while [ $n -lt 400 ]; do
    $prepare
    { env "$var=$n" ./levelc --schema "$SAMPLE/game.schema.json" rename "$dir" prefabs props/kit >turn.out 2>turn.err; st=$?; } 2>/dev/null
    [ $st -eq 0 ] && return 0
    if ! $whole $st >turn.diff 2>&1; then
      echo "FAIL  $var=$n (status $st) left the project changed:"; cat turn.err turn.diff | head -20
      fail=$((fail + 1)); return 1
    fi
    stops=$((stops + 1)); n=$((n + 1))
  done
}
undone() { diff -r -x .ecs-deps r r0 && grep -q 'nothing changed' turn.err; }
in_turn LEVELC_FAIL_AT : undone r; failures=$stops
echo "      ($failures injected failures, each undone)" >>"$OUT/log"
check "all or nothing: $failures failing changes each left the project byte-identical" test "$failures" -ge 15
check "all or nothing: past the last change the rename succeeds" sh -c "test -f r/props/kit/ship.json && test ! -e r/prefabs"
check "all or nothing: and comes back" sh -c "./levelc --schema '$SAMPLE/game.schema.json' rename r props/kit prefabs >/dev/null && diff -r -x .ecs-deps r r0"

# ---- interrupted: a signal during the commit ends the program with the project whole --------
# LEVELC_SIGNAL_AT=N (a test aid): levelc sends itself SIGTERM right after the
# Nth rename of the commit (8 here: 2 plain moves, 2 for each of the 3
# patched sources); blocked until the commit is over, it ends the program then
# (status 143): the project is fully renamed (or as it was), no temporary left.
cp -r r0 rr && rm -f rr/.ecs-deps && L rename rr prefabs props/kit >/dev/null 2>&1
fresh_k() { rm -rf k && cp -r r0 k && rm -f k/.ecs-deps; }
whole() { [ "$1" -eq 143 ] && { diff -r -x .ecs-deps k rr || diff -r -x .ecs-deps k r0; }; }
in_turn LEVELC_SIGNAL_AT fresh_k whole k
echo "      ($stops interrupted renames, each whole)" >>"$OUT/log"
check "interrupted: each of the $stops renames stopped by SIGTERM left the project whole, no temporary" test "$stops" -ge 8

# ---- the cache -------------------------------------------------------------------------------
fresh c && sleep 0.1   # older than the cache's racy window
stats() { LEVELC_DEPS_STATS=1 L deps c "$@" 2>&1 >/dev/null | grep '^levelc: stats:'; }
check "cache: a cold check parses every source" sh -c "$(declare -f L stats); SAMPLE='$SAMPLE'; stats | grep -q '5 sources parsed'"
check "cache: a warm check parses none and writes nothing" sh -c "$(declare -f L stats); SAMPLE='$SAMPLE'; stats | grep -q '0 sources parsed, 0 hashed, 5 from the cache, cache unchanged'"
sed -i 's|"models/dock"|"models/dok"|' c/levels/harbor.json
sleep 0.1
check "cache: an edited file is read again, alone" sh -c "$(declare -f L stats); SAMPLE='$SAMPLE'; stats | grep -q '1 sources parsed'"
check "cache: the edit is noticed" sh -c "$(declare -f L); SAMPLE='$SAMPLE'; L deps c | grep -q \"broken reference 'models/dok'\""
sleep 0.1 && L deps c >/dev/null 2>&1 && sleep 0.1  # the edit is older than the racy window now
touch c/prefabs/ship.json && sleep 0.1
check "cache: a touched file is hashed, not parsed" sh -c "$(declare -f L stats); SAMPLE='$SAMPLE'; stats | grep -q '0 sources parsed, 1 hashed'"
mv c/models/dock.mesh c/models/dok.mesh
check "cache: a file renamed outside the tool is noticed" expect want_clean.txt L deps c
# a source that cannot be read once (as root no mode bit stops a read: here no
# file descriptor is left for it, fds 0-2 open and 3 the last allowed) is
# read again next time: the error is not taken from the cache
touch c/prefabs/ship.json && sleep 0.1
(exec </dev/null >unreadable.out 2>unreadable.err 3<&- && ulimit -n 4 && exec ./levelc --schema "$SAMPLE/game.schema.json" deps c); st=$?
check "cache: a source that cannot be read: exit 1, named" sh -c "test $st -eq 1 && grep -q '^levelc: c/prefabs/ship.json: cannot read: ' unreadable.err"
check "cache: readable again: read again, not the cached error" sh -c "$(declare -f L stats); SAMPLE='$SAMPLE'; stats | grep -q '1 sources parsed'"
check "cache: readable again: nothing broken" expect want_clean.txt L deps c
rm c/models/crate.mesh
check "cache: a deleted file is noticed" sh -c "$(declare -f L); SAMPLE='$SAMPLE'; L deps c | grep -q \"prefabs/crate.json:7:34: broken reference 'models/crate'\""
printf 'mesh\n' >c/models/crate.mesh
printf '{"entities": [{"components": [{"type": "mesh", "mesh": "models/new"}]}]}\n' >c/prefabs/extra.json
check "cache: an added file is noticed" sh -c "$(declare -f L); SAMPLE='$SAMPLE'; L deps c | grep -q \"^c/prefabs/extra.json:1:56: broken reference 'models/new'\""
rm c/prefabs/extra.json
L deps c >cache_good.txt 2>/dev/null
cp c/.ecs-deps cache_saved
corrupt() { # how, then: a note naming the cache, the same findings, a good cache again
  local how=$1
  check "cache: $how: rebuilt with a note, same findings, trusted again" sh -c "$(declare -f L stats); SAMPLE='$SAMPLE'; L deps c >cache_now.txt 2>cache_now.err; diff cache_good.txt cache_now.txt && grep -q 'c/.ecs-deps: .*rebuilding it' cache_now.err && stats | grep -q ' 0 sources parsed'"
}
size=$(wc -c <c/.ecs-deps)
printf '\x5a' | dd of=c/.ecs-deps bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
corrupt "a changed byte"
head -c $((size - 20)) cache_saved >c/.ecs-deps
corrupt "a truncated file"
head -c 2000 /dev/urandom >c/.ecs-deps
corrupt "foreign bytes"
{ head -c 8 cache_saved; printf '\x63\x00\x00\x00'; tail -c +13 cache_saved; } >c/.ecs-deps
corrupt "another version"
# a --plugin is known by its bytes: another build of the same size and time is another configuration
check "cache: build the path plugin" gcc -std=c99 -O1 $WARN -shared -fPIC -I"$ROOT" "$ROOT/tests/plugins/deps_kind.c" -o kind_path.so
check "cache: build the entity plugin" gcc -std=c99 -O1 $WARN -shared -fPIC -I"$ROOT" -DDEPS_KIND_ENTITY "$ROOT/tests/plugins/deps_kind.c" -o kind_entity.so
rm -rf pk && mkdir -p pk/levels pk/models && printf 'm\n' >pk/models/a.mesh
printf '{"entities": [{"name": "models/a", "components": [{"type": "label", "target": "models/a", "count": 7}]}]}\n' >pk/levels/l.json
cp pk/levels/l.json l_before.json
cp kind_path.so kind.so && touch -d @1700000000 kind.so
check "cache: with the path plugin, refs lists the label's target" sh -c "./levelc --plugin ./kind.so refs pk models/a | grep -qx '1 references in 1 files'"
cp kind_entity.so kind.so && touch -d @1700000000 kind.so
check "cache: the two plugins differ, same size" sh -c "! cmp -s kind_path.so kind_entity.so && test \$(wc -c <kind_path.so) -eq \$(wc -c <kind_entity.so)"
check "cache: the other plugin (same name, size, time) is noticed" sh -c "./levelc --plugin ./kind.so rename pk models/a models/b 2>kind.err | grep -qx '1 files moved, 0 references in 0 files patched' && cmp -s pk/levels/l.json l_before.json && grep -q 'other --schema/--plugin files' kind.err"
./levelc deps c >/dev/null 2>other.err   # without the schema: other types, another configuration
check "cache: another --schema set is not trusted" grep -q 'other --schema/--plugin files' other.err

echo "check_deps: $fail failed"
[ $fail -eq 0 ] && echo "check_deps: every check passed"
[ $fail -eq 0 ]
