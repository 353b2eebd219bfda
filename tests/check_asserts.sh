#!/usr/bin/env bash
# tests/check_asserts.sh - what a debug build's misuse asserts print, with the
# default assert() (tests/test_ecs_hardening.c checks the same asserts through
# an ECS_ASSERT that counts them): name_slot on a destroyed entity must stop
# the program with a message that says in words what went wrong, not the raw
# expression; with -DNDEBUG the same program runs to its end (the fast read
# checks nothing in release builds). C99 with gcc and C++11 with clang++.
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${BUILD_DIR_ROOT:-build/tests}/asserts
WARN="-Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion"
mkdir -p "$OUT" || exit 2
cat >"$OUT/slot.c" <<'SRC'
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include <stdio.h>
#define HP_FIELDS(X) X(int, hp)
ECS_MANAGER_DEFINE(health, HP_FIELDS)
int main(void)
{
    ecs_entity_manager em;
    health h;
    ecs_entity e;
    ecs_entity_manager_init(&em);
    health_init(&h, ECS_LOOKUP_DIRECT);
    e = ecs_entity_create(&em);
    h.hp[health_create(&h, e).i] = 7;
    ecs_entity_destroy(&em, e);
    health_collect(&h, &em);       /* the dead entity's slot is emptied */
    printf("read %d\n", h.hp[health_slot(&h, e).i]); /* misuse: e is dead */
    health_free(&h);
    ecs_entity_manager_free(&em);
    return 0;
}
SRC
fail=0
for build in "gcc -std=c99" "clang++ -x c++ -std=c++11"; do
  name=${build%% *}
  # shellcheck disable=SC2086
  if ! $build -g $WARN -I. "$OUT/slot.c" -o "$OUT/slot_$name" 2>"$OUT/build_$name.log"; then
    echo "check_asserts: $build does not build the misuse program"; cat "$OUT/build_$name.log"; fail=1; continue
  fi
  sh -c '"$0" >"$1" 2>&1' "$OUT/slot_$name" "$OUT/run_$name.log" 2>/dev/null # (no "Aborted" from the shell)
  status=$?
  if [ "$status" -eq 0 ]; then
    echo "check_asserts: $build: name_slot on a dead entity did not stop the debug build"; fail=1
  elif ! grep -q 'name_slot: the entity does not own the slot of its index: it is dead (destroyed)' "$OUT/run_$name.log"; then
    echo "check_asserts: $build: the assert does not say what went wrong:"; cat "$OUT/run_$name.log"; fail=1
  elif grep -q 'm->entity\[idx\]' "$OUT/run_$name.log"; then
    echo "check_asserts: $build: the assert prints the raw expression:"; cat "$OUT/run_$name.log"; fail=1
  fi
  # shellcheck disable=SC2086
  if ! $build -O2 -DNDEBUG $WARN -I. "$OUT/slot.c" -o "$OUT/slot_${name}_release" ||
    ! "$OUT/slot_${name}_release" >/dev/null; then
    echo "check_asserts: $build -DNDEBUG: the release build does not run to its end"; fail=1
  fi
done
[ "$fail" -eq 0 ] || exit 1
echo "check_asserts: name_slot on a dead entity stops a debug build saying so in words (gcc C99, clang++ C++11); release runs"
