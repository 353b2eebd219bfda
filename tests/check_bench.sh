#!/usr/bin/env bash
# tests/check_bench.sh - bench/bench.c builds warning-free (gcc and clang,
# C99 and C++11), runs in --quick mode, and prints every metric of the
# README's Benchmark section in --csv form; no stale id may be alive after the churn.
# Then --quick again under ASan+UBSan (every section but deps: see below).
set -eu
cd "$(dirname "$0")/.."
out=${BUILD_DIR_ROOT:-/tmp}/check_bench
mkdir -p "$out"
STB=${STB_INCLUDE:-/usr/include/stb}
WARN="-Wall -Wextra -Wpedantic -Werror"
gcc -std=c99 -O2 $WARN -I. -I"$STB" bench/bench.c -o "$out/bench" -lm -lpthread
clang -std=c99 -O2 $WARN -I. -I"$STB" bench/bench.c -o "$out/bench_clang" -lm -lpthread
g++ -x c++ -std=c++11 -O2 $WARN -I. -I"$STB" bench/bench.c -o "$out/bench_cxx" -lm -lpthread
"$out/bench" --quick --csv >"$out/bench.csv" 2>/dev/null
missing=""
for m in create_ns create_many_ns alive_random_ns destroy_ns destroy_many_ns churn_ns churn_stale_alive \
  baseline_hashset_create_ns component_create_ns component_create_hash_ns component_create_many_ns fill_plain_ns \
  component_get_direct_ns component_get_dense_ns component_get_hash_ns gather_plain_ns component_get_many_dense_ns \
  component_remove_dense_ns component_remove_hash_ns component_collect_ns component_gc_ns component_bytes_per_entity \
  component_bytes_per_entity_hash component_bytes_per_entity_direct baseline_stb_ds_lookup_ns \
  simulate_ns simulate_plain_ns simulate_ratio baseline_aos_simulate_ns \
  memory_bandwidth_gbs transform_chain_set_local_ns transform_chain_set_local_many_ns transform_world_pass_ns \
  transform_world_pass_plain_ns transform_world_pass_ratio transform_deferred_frame_us transform_bytes_per_node \
  transform_reorder_ns transform_create_ns spawn_level_10k_us spawn_ns_per_entity spawn_vs_memcpy_ratio compile_mb_per_s \
  systems_2_ns systems_2_plain_ns systems_7_ns systems_7_plain_ns systems_7_mixed_ns systems_7_mixed_plain_ns \
  systems_7_mixed_2e17_ns systems_7_mixed_2e17_plain_ns systems_7_lines systems_7_component_lines thread_probe_mt2_speedup \
  query_direct_holes_ns query_direct_holes_changed_ns query_direct_holes_hand_ns \
  query_plain_ns query_direct_ns query_group_ns query_lookup_ns \
  transform_world_pass_mt2_speedup systems_7_mixed_mt2_speedup spawn_level_10k_mt2_speedup \
  snapshot_save_gbs snapshot_memcpy_gbs snapshot_load_gbs world_clone_gbs snapshot_json_save_mb_per_s snapshot_json_load_mb_per_s \
  snapshot_bytes_per_entity snapshot_bytes_ratio snapshot_1k_roundtrip_us \
  deps_cold_mb_per_s deps_warm_ratio deps_walk_ratio rename_ratio rename_nosync_ratio \
  console_roundtrip_us console_echo_roundtrip_us console_roundtrip_ratio console_poll_idle_ns \
  snapshot_hash_gbs snapshot_delta_bytes_ratio snapshot_delta_gbs snapshot_delta_compare_gbs snapshot_apply_delta_gbs snapshot_apply_delta_copy_gbs \
  snapshot_world_digest_gbs snapshot_delta_from_world_bytes_ratio snapshot_delta_from_world_gbs snapshot_world_digest_delta_gbs \
  snapshot_world_digest_delta_over_digest; do
  grep -q "^$m,[0-9.]*," "$out/bench.csv" || missing="$missing $m"
done
[ -z "$missing" ] || { echo "metrics missing from --csv:$missing"; cat "$out/bench.csv"; exit 1; }
for gone in component_lookup_hash_ns component_lookup_dense_ns; do
  ! grep -q "^$gone," "$out/bench.csv" || { echo "dropped metric $gone still printed"; exit 1; }
done
grep -q "^churn_stale_alive,0.0000," "$out/bench.csv" || { echo "stale ids alive after churn"; exit 1; }
# --quick once more under ASan+UBSan (gcc -O1): every section but deps, one
# process each. The deps rows wait on the disk (fsync of every renamed file:
# 40-60 s of wall time for about 1.5 s of CPU in --quick), so that section
# runs in the plain build above only; the code it times (examples/levelc_deps.h)
# runs under the same sanitizers in tests/check_deps.sh and tests/fuzz_deps_cache.c.
gcc -std=c99 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined $WARN \
  -I. -I"$STB" bench/bench.c -o "$out/bench_asan" -lm -lpthread
for section in entities components transforms resources systems threads snapshots console; do
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/bench_asan" --quick --csv --only "$section" >"$out/bench_asan_$section.csv" 2>"$out/bench_asan_$section.log" ||
    { echo "bench --quick --only $section fails under ASan+UBSan:"; tail -n 30 "$out/bench_asan_$section.log"; exit 1; }
done
echo "check_bench: builds as C99 (gcc, clang) and C++11; --quick --csv has all $(wc -l <"$out/bench.csv") rows; --quick under ASan+UBSan clean (all sections but deps)"
