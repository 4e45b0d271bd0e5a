#!/usr/bin/env bash
# Aggregated private faults (the default) against --exact (docs/model.md
# 3.3a, and the bulk draws of 3.3b): the small scenarios over three seeds give the same headline figures
# in both modes -- each mode's mean within the exact mode's seed-to-seed
# spread or 1%, whichever is larger; the results record the mode; pooled
# tables are settled correctly by the paths that look at them (the
# invariant checker after migration calls, compaction and sleeping threads
# that change CPU); each mode is deterministic.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/agg.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

figures='[.vmstat.numa_hint_faults, .vmstat.numa_hint_faults_local, .vmstat.numa_pages_migrated,
          .vmstat.numa_pte_updates, .interrupts.tlb_shootdowns, .throughput_ops_per_s] | @tsv'
names=(numa_hint_faults numa_hint_faults_local numa_pages_migrated numa_pte_updates
       tlb_shootdowns throughput_ops_per_s)

# One case: a name, then the run's arguments.  small with migrate_pages(2)
# calls is the case where the modes' runs differ (the calls move pages of
# pooled tables, so which pages faulted matters there; by 4 s it does).
cases=("small|small --duration 3"
       "small-arm64|small-arm64 --duration 3"
       "small-invlpgb|small-invlpgb --duration 3"
       "small-migrate|small --set workload.migrate_call=migrate_pages --set workload.migrate_at_s=1 --set workload.migrate_every_s=1 --duration 4")
for c in "${cases[@]}"; do
    name=${c%%|*}
    read -r -a args <<< "${c#*|}"
    for seed in 1 2 3; do
        for mode in agg exact; do
            extra=()
            [[ $mode == exact ]] && extra=(--exact)
            # the invariant checker on every run (with migration calls a
            # run may end with a batch in flight, whose destination pages
            # the checker counts as reserved)
            NUMASIM_CHECK=1 "$NUMASIM" run "${args[@]}" "${extra[@]}" --seed "$seed" -q \
                --json "$work/$name-$mode-$seed.json" > "$work/$name-$mode-$seed.txt" ||
                fail "$name seed $seed ($mode) failed"
            jq -r "$figures" "$work/$name-$mode-$seed.json" >> "$work/$name-$mode.tsv"
        done
    done
    # the mode is recorded, and the default one aggregates
    [[ $(jq '.scenario.run.exact' "$work/$name-agg-1.json") == false ]] || fail "$name: run.exact not false by default"
    [[ $(jq '.scenario.run.exact' "$work/$name-exact-1.json") == true ]] || fail "$name: --exact not recorded"
    (( $(jq '.stats.hint_faults_pooled' "$work/$name-agg-1.json") > 0 )) || fail "$name: no fault was aggregated"
    [[ $(jq '.stats.hint_faults_pooled' "$work/$name-exact-1.json") == 0 ]] || fail "$name: --exact aggregated faults"
    # most pooled faults are drawn in bulk, without an event each (3.3b)
    jq -e '.stats.hint_faults_bulk * 2 > .stats.hint_faults_pooled' "$work/$name-agg-1.json" > /dev/null ||
        fail "$name: fewer than half the pooled faults drawn in bulk"
    (( $(jq '.stats.events' "$work/$name-agg-1.json") < $(jq '.stats.events' "$work/$name-exact-1.json") )) ||
        fail "$name: the bulk draws saved no event"
    [[ $(jq '.stats.hint_faults_bulk' "$work/$name-exact-1.json") == 0 ]] || fail "$name: --exact drew faults in bulk"
    grep -q "hint faults aggregated" "$work/$name-exact-1.txt" && fail "$name: --exact report names aggregated faults"
    for i in "${!names[@]}"; do
        col=$((i + 1))
        paste <(cut -f"$col" "$work/$name-exact.tsv") <(cut -f"$col" "$work/$name-agg.tsv") | awk -v n="$name" -v f="${names[i]}" '
            { e[NR] = $1; a[NR] = $2; se += $1; sa += $2
              if (NR == 1 || $1 < lo) lo = $1
              if (NR == 1 || $1 > hi) hi = $1 }
            END { me = se / NR; ma = sa / NR; spread = hi - lo
                  tol = 0.01 * (me < 0 ? -me : me); if (spread > tol) tol = spread
                  d = ma - me; if (d < 0) d = -d
                  printf "  %-14s %-22s exact %14.1f  aggregated %14.1f  spread %12.1f\n", n, f, me, ma, spread
                  if (d > tol) { printf "FAIL: %s %s: aggregated mean %.1f is %.1f from the exact mean %.1f (tolerance %.1f)\n", n, f, ma, d, me, tol > "/dev/stderr"; exit 1 } }' ||
            fail "$name ${names[i]}: the modes disagree"
    done
done

# Paths that settle pooled tables, with the invariant checker on: periodic
# compaction, and threads that sleep and wake on other CPUs (and nodes)
for extra in "--set run.compact_memory_every_s=1" "--set workload.run_ms=3 --set workload.sleep_ms=2"; do
    read -r -a xa <<< "$extra"
    NUMASIM_CHECK=1 "$NUMASIM" run small "${xa[@]}" --duration 5 -q --json "$work/x.json" > /dev/null ||
        fail "small $extra: run or invariants failed"
    (( $(jq '.stats.hint_faults_pooled' "$work/x.json") > 0 )) || fail "small $extra: nothing aggregated"
    (( $(jq '.stats.hint_faults_bulk' "$work/x.json") > 0 )) || fail "small $extra: nothing drawn in bulk"
done

# Determinism within each mode
for mode in agg exact; do
    extra=()
    [[ $mode == exact ]] && extra=(--exact)
    "$NUMASIM" run small --set workload.migrate_call=migrate_pages --set workload.migrate_at_s=1 \
        --set workload.migrate_every_s=1 --duration 4 "${extra[@]}" --seed 1 -q --json "$work/again-$mode.json" > /dev/null ||
        fail "repeat run ($mode) failed"
    cmp -s "$work/again-$mode.json" "$work/small-migrate-$mode-1.json" || fail "two $mode runs differ"
done
echo "ok"
