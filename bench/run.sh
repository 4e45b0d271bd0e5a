#!/usr/bin/env bash
# jq filters in this file are single-quoted on purpose.
# shellcheck disable=SC2016
# numasim benchmark suite.  See bench/README.md.
#
#   bench/run.sh                       build, then run every benchmark
#   bench/run.sh seed-run callgrind    build, then run only these
#
# Benchmarks: seed-run seed-run-exact seed-run-oracle seed-table scale seed-hour cpus growth callgrind
# (seed-run-oracle: the seed run with the TLB-coherence oracle on, passing
# when its median is at most 3x seed-run's, measured first if not asked for)
# (seed-run: the default mode, private faults aggregated; seed-run-exact:
# the same run with --exact, every hint fault one by one)
#
# Environment:
#   BENCH_RUNS=N     timed runs per benchmark (default 5; seed-run, seed-table, scale)
#   BENCH_QUICK=1    one timed run, no warm-up (a smoke test, not a measurement)
#   NUMASIM=PATH     binary to benchmark (default: ./numasim after 'make -j2';
#                    'make bench' sets it to build/release/numasim)
#   BENCH_OUT=DIR    where the JSON lines go (default: build/bench)
#   BENCH_CPUS_DURATION=S  simulated seconds of the cpus series (default 60)
#
# Output: a table on stdout; the same numbers as JSON lines in
# $BENCH_OUT/latest.jsonl (rewritten each invocation) and appended to
# $BENCH_OUT/history.jsonl.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

ALL_BENCHES=(seed-run seed-run-exact seed-run-oracle seed-table scale seed-hour cpus growth callgrind)

usage() {
    echo "usage: bench/run.sh [BENCH...]   (BENCH: ${ALL_BENCHES[*]})"
    echo "env: BENCH_RUNS=N (default 5), BENCH_QUICK=1, NUMASIM=PATH, BENCH_OUT=DIR, BENCH_CPUS_DURATION=S"
}

# ---- arguments -----------------------------------------------------------

BENCHES=()
for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
        seed-run|seed-run-exact|seed-run-oracle|seed-table|scale|seed-hour|cpus|growth|callgrind) BENCHES+=("$arg") ;;
        all) BENCHES+=("${ALL_BENCHES[@]}") ;;
        *) echo "bench/run.sh: unknown benchmark '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done
[[ ${#BENCHES[@]} -gt 0 ]] || BENCHES=("${ALL_BENCHES[@]}")

QUICK=${BENCH_QUICK:-0}
[[ $QUICK == 0 || $QUICK == 1 ]] || { echo "bench/run.sh: BENCH_QUICK must be 0 or 1" >&2; exit 2; }
if [[ $QUICK == 1 ]]; then
    RUNS=1
    WARMUP=0
else
    RUNS=${BENCH_RUNS:-5}
    WARMUP=1
fi
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench/run.sh: BENCH_RUNS must be a positive integer" >&2; exit 2; }

for tool in jq awk /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bench/run.sh: '$tool' not found" >&2; exit 2; }
done
for b in "${BENCHES[@]}"; do
    if [[ $b == callgrind ]]; then
        for tool in valgrind callgrind_annotate; do
            command -v "$tool" >/dev/null || { echo "bench/run.sh: '$tool' not found (needed by callgrind)" >&2; exit 2; }
        done
    fi
done

# ---- build and snapshot the binary ---------------------------------------

scripts/deps.sh --bench >&2 || { echo "bench/run.sh: cannot install jq, time, valgrind" >&2; exit 1; }
make -j2 >&2 || { echo "bench/run.sh: 'make -j2' failed; nothing benchmarked" >&2; exit 1; }
SRC_BIN=${NUMASIM:-$ROOT/numasim}
[[ -x $SRC_BIN ]] || { echo "bench/run.sh: no binary at $SRC_BIN" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/numasim-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Benchmark a private copy: src/ may be rebuilt while we run, and every run of
# one invocation should time the same binary.
BIN=$WORK/numasim
cp "$(readlink -f "$SRC_BIN")" "$BIN"
BIN_SHA=$(sha256sum "$BIN" | cut -c1-12)
GIT_REV=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then GIT_REV+="-dirty"; fi

OUT_DIR=${BENCH_OUT:-$ROOT/build/bench}
mkdir -p "$OUT_DIR"
LATEST=$OUT_DIR/latest.jsonl
HISTORY=$OUT_DIR/history.jsonl
: > "$LATEST"
STAMP=$(date -u +%Y-%m-%dT%H:%M:%SZ)
NCPU=$(nproc)

# Append one JSON object (given as jq args + filter) to latest and history.
emit_json() {
    local line
    line=$(jq -nc --arg time "$STAMP" --arg git "$GIT_REV" --arg binary "$BIN_SHA" \
        --argjson nproc "$NCPU" --argjson quick "$QUICK" "$@")
    printf '%s\n' "$line" >> "$LATEST"
    printf '%s\n' "$line" >> "$HISTORY"
}

echo "numasim benchmarks  $STAMP  git $GIT_REV  binary sha256 $BIN_SHA"
echo "host: $NCPU CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM," \
     "load $(cut -d' ' -f1-3 /proc/loadavg);  runs: $RUNS timed$([[ $WARMUP == 1 ]] && echo ' + 1 warm-up' || echo ', no warm-up')"
if [[ $QUICK == 1 ]]; then echo "BENCH_QUICK=1: single runs, no warm-up -- a smoke test, not a measurement"; fi
echo

# ---- helpers --------------------------------------------------------------

PAGES_PER_GIB=262144     # 4 KiB pages per GiB
MIB=1048576

# Scale topology: 8 sockets x 1 node x 64 cores x SMT-2 = 1,024 CPUs,
# 600 GiB per node, 4 TiB workload, 1,024 threads, 60 s simulated.
SCALE_ARGS=(--set machine.sockets=8 --set machine.nodes_per_socket=1
            --set machine.cores_per_node=64 --set machine.threads_per_core=2
            --set machine.cpus=1024 --set machine.mem_per_node_gib=600
            --set workload.threads=1024 --set workload.memory_gib=4096
            --duration 60)
SCALE_GIB=4096
SEED_GIB=120
CPUS_DURATION=${BENCH_CPUS_DURATION:-60}
[[ $CPUS_DURATION =~ ^[1-9][0-9]*$ ]] || { echo "bench/run.sh: BENCH_CPUS_DURATION must be a positive integer" >&2; exit 2; }

# timed_run TAG CMD...: run CMD under /usr/bin/time -v; sets
#   R_WALL (s, measured outside the process), R_USER and R_SYS (the
#   process's CPU seconds in user and kernel mode), R_RSS_KB, R_OUT, R_ERR.
# Aborts the script if the command fails.
timed_run() {
    local tag=$1; shift
    R_OUT=$WORK/$tag.out
    R_ERR=$WORK/$tag.err
    local tfile=$WORK/$tag.time t0 t1 rc=0
    t0=$EPOCHREALTIME
    /usr/bin/time -v -o "$tfile" "$@" > "$R_OUT" 2> "$R_ERR" || rc=$?
    t1=$EPOCHREALTIME
    if [[ $rc != 0 ]]; then
        echo "bench/run.sh: command failed (exit $rc): $*" >&2
        tail -n 20 "$R_ERR" >&2
        exit 1
    fi
    R_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    R_RSS_KB=$(awk -F': *' '/Maximum resident set size/ { print $2 }' "$tfile")
    R_USER=$(awk -F': *' '/User time \(seconds\)/ { print $2 }' "$tfile")
    R_SYS=$(awk -F': *' '/System time \(seconds\)/ { print $2 }' "$tfile")
}

# stats "v1 v2 ...": prints "median min max".
stats() {
    tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | awk '
        { v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
fmt()  { awk -v v="$1" -v f="$2" 'BEGIN { printf f, v }'; }

TABLE_FMT="%-11s %9s %17s %11s %9s %13s %9s %9s  %s\n"
table_header() {
    # shellcheck disable=SC2059
    printf "$TABLE_FMT" benchmark "median s" "min-max s" "user/sys s" "RSS MiB" "events/s" "sim s/s" "B/page" "target"
    # shellcheck disable=SC2059
    printf "$TABLE_FMT" ----------- --------- ----------------- ----------- --------- ------------- --------- --------- ------
}
HEADER_DONE=0
# table_row NAME MEDIAN MIN-MAX REST...: the user/sys column is bench_timed's.
table_row() {
    if [[ $HEADER_DONE == 0 ]]; then table_header; HEADER_DONE=1; fi
    local name=$1 median=$2 range=$3; shift 3
    # shellcheck disable=SC2059
    printf "$TABLE_FMT" "$name" "$median" "$range" "$(fmt "$B_USER" %.2f)/$(fmt "$B_SYS" %.2f)" "$@"
}

# bench_timed NAME PAGES_RESIDENT SIM_RUNS_DEFAULT CMD...
#   Warm-up + RUNS timed runs of CMD (which must write JSON to $WORK/NAME.json
#   via the placeholder @JSON@), then one table row.  Sets B_* for the caller's
#   target check.
bench_timed() {
    local name=$1 pages=$2; shift 2
    local walls="" users="" syss="" rss_max=0 i
    local -a cmd=()
    local arg
    for arg in "$@"; do cmd+=("${arg//@JSON@/$WORK/$name.json}"); done

    if [[ $WARMUP == 1 ]]; then
        echo "  $name: warm-up" >&2
        timed_run "$name-warm" "${cmd[@]}"
    fi
    for ((i = 1; i <= RUNS; i++)); do
        echo "  $name: run $i/$RUNS" >&2
        timed_run "$name-$i" "${cmd[@]}"
        walls+=" $R_WALL"
        users+=" $R_USER"
        syss+=" $R_SYS"
        (( R_RSS_KB > rss_max )) && rss_max=$R_RSS_KB
        echo "    wall $R_WALL s (user $R_USER s, sys $R_SYS s), RSS $((R_RSS_KB / 1024)) MiB" >&2
    done
    read -r B_MEDIAN B_MIN B_MAX < <(stats "$walls")
    read -r B_USER _ _ < <(stats "$users")
    read -r B_SYS _ _ < <(stats "$syss")
    B_RSS_BYTES=$((rss_max * 1024))
    B_RSS_MIB=$(calc "$B_RSS_BYTES / $MIB")
    B_BPP=$(calc "$B_RSS_BYTES / $pages")
    B_WALLS=$(tr ' ' '\n' <<< "$walls" | grep -v '^$' | jq -sc .)
    # Last run's stdout/stderr/JSON describe the work done (deterministic).
    B_ERR=$R_ERR
    B_JSON=$WORK/$name.json
}

# ---- seed-run ---------------------------------------------------------------

# bench_seed_run NAME TARGET_S [ARGS...]: the seed run (180 s simulated) with
# ARGS; issue 33's targets on a quiet host are 0.4 s aggregated (the default)
# and 1.5 s exact (issue 13's were 0.6 s and 1.8 s).
bench_seed_run() {
    local name=$1 target=$2; shift 2
    local pages=$((SEED_GIB * PAGES_PER_GIB))
    bench_timed "$name" "$pages" "$BIN" run seed -q "$@" --json @JSON@
    local events sim
    events=$(jq '.stats.events' "$B_JSON")
    sim=$(jq '.simulated_seconds' "$B_JSON")
    local eps sps rss_limit ok=PASS
    eps=$(calc "$events / $B_MEDIAN")
    sps=$(calc "$sim / $B_MEDIAN")
    rss_limit=$((8 * pages + 64 * MIB))
    awk -v m="$B_MEDIAN" -v t="$target" 'BEGIN { exit !(m <= t) }' || ok=FAIL
    (( B_RSS_BYTES <= rss_limit )) || ok=FAIL
    table_row "$name" "$B_MEDIAN" "$B_MIN-$B_MAX" "$(fmt "$B_RSS_MIB" %.1f)" "$(fmt "$eps" %.0f)" \
        "$(fmt "$sps" %.1f)" "$(fmt "$B_BPP" %.2f)" \
        "$ok  (median <= $target s, RSS <= 8 B/page + 64 MiB = $(fmt "$(calc "$rss_limit / $MIB")" %.0f) MiB)"
    emit_json --arg bench "$name" --argjson runs "$RUNS" --argjson walls "$B_WALLS" \
        --argjson median "$B_MEDIAN" --argjson min "$B_MIN" --argjson max "$B_MAX" \
        --argjson user "$B_USER" --argjson sys "$B_SYS" \
        --argjson rss "$B_RSS_BYTES" --argjson pages "$pages" --argjson events "$events" \
        --argjson sim "$sim" --argjson eps "$eps" --argjson sps "$sps" --argjson bpp "$B_BPP" \
        --argjson rss_limit "$rss_limit" --argjson target "$target" --arg result "$ok" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench, runs:$runs,
          wall_s:{median:$median, min:$min, max:$max, all:$walls},
          cpu_s:{user_median:$user, sys_median:$sys}, peak_rss_bytes:$rss, pages:$pages,
          events:$events, simulated_s:$sim, events_per_wall_s:$eps, sim_s_per_wall_s:$sps,
          rss_bytes_per_page:$bpp, target:{median_wall_s_max:$target, rss_bytes_max:$rss_limit}, result:$result}'
}

# ---- seed-table -------------------------------------------------------------

bench_seed_table() {
    local jobs=$NCPU
    local pages=$((SEED_GIB * PAGES_PER_GIB))
    # Up to $jobs runs are resident at once: B/page is per resident page.
    local resident=$((pages * jobs))
    bench_timed seed-table "$resident" "$BIN" ab seed --kernels v7.3,v7.3+single-folio-v2 \
        --pairs 3 --jobs "$jobs" --json @JSON@
    local sim nruns
    sim=$(jq '.simulated_seconds' "$B_JSON")
    # stderr: "wall time: X.XX s (12 runs, 2 at a time)"
    nruns=$(sed -n 's/.*wall time:.*(\([0-9][0-9]*\) runs.*/\1/p' "$B_ERR" | tail -n1)
    [[ -n $nruns ]] || nruns=12
    local sps ok=PASS
    sps=$(calc "$sim * $nruns / $B_MEDIAN")
    # issue 33's target: the table in 1.5 s on two idle cores (issue 13's: 8 s)
    awk -v m="$B_MEDIAN" 'BEGIN { exit !(m <= 1.5) }' || ok=FAIL
    table_row seed-table "$B_MEDIAN" "$B_MIN-$B_MAX" "$(fmt "$B_RSS_MIB" %.1f)" "-" \
        "$(fmt "$sps" %.1f)" "$(fmt "$B_BPP" %.2f)" "$ok  (median <= 1.5 s; $nruns runs, --jobs $jobs)"
    emit_json --arg bench seed-table --argjson runs "$RUNS" --argjson walls "$B_WALLS" \
        --argjson median "$B_MEDIAN" --argjson min "$B_MIN" --argjson max "$B_MAX" \
        --argjson user "$B_USER" --argjson sys "$B_SYS" \
        --argjson rss "$B_RSS_BYTES" --argjson pages "$resident" --argjson jobs "$jobs" \
        --argjson nruns "$nruns" --argjson sim "$sim" --argjson sps "$sps" --argjson bpp "$B_BPP" \
        --arg result "$ok" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench, runs:$runs,
          wall_s:{median:$median, min:$min, max:$max, all:$walls},
          cpu_s:{user_median:$user, sys_median:$sys}, peak_rss_bytes:$rss,
          pages_resident:$pages, jobs:$jobs, sim_runs:$nruns, simulated_s_per_run:$sim,
          events_per_wall_s:null, sim_s_per_wall_s:$sps, rss_bytes_per_page:$bpp,
          target:{median_wall_s_max:1.5}, result:$result}'
}

# ---- scale --------------------------------------------------------------------

bench_scale() {
    local pages=$((SCALE_GIB * PAGES_PER_GIB))
    bench_timed scale "$pages" "$BIN" run seed -q "${SCALE_ARGS[@]}" --json @JSON@
    local events sim
    events=$(jq '.stats.events' "$B_JSON")
    sim=$(jq '.simulated_seconds' "$B_JSON")
    local eps sps ok=PASS rss_limit=$((12 * 1024 * MIB))
    eps=$(calc "$events / $B_MEDIAN")
    sps=$(calc "$sim / $B_MEDIAN")
    (( B_RSS_BYTES <= rss_limit )) || ok=FAIL
    awk -v s="$sps" 'BEGIN { exit !(s >= 10) }' || ok=FAIL
    table_row scale "$B_MEDIAN" "$B_MIN-$B_MAX" "$(fmt "$B_RSS_MIB" %.1f)" "$(fmt "$eps" %.0f)" \
        "$(fmt "$sps" %.2f)" "$(fmt "$B_BPP" %.2f)" \
        "$ok  (RSS <= 12 GiB, >= 10x real time: median <= $(fmt "$(calc "$sim / 10")" %.0f) s)"
    emit_json --arg bench scale --argjson runs "$RUNS" --argjson walls "$B_WALLS" \
        --argjson median "$B_MEDIAN" --argjson min "$B_MIN" --argjson max "$B_MAX" \
        --argjson user "$B_USER" --argjson sys "$B_SYS" \
        --argjson rss "$B_RSS_BYTES" --argjson pages "$pages" --argjson events "$events" \
        --argjson sim "$sim" --argjson eps "$eps" --argjson sps "$sps" --argjson bpp "$B_BPP" \
        --argjson rss_limit "$rss_limit" --arg result "$ok" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench, runs:$runs,
          wall_s:{median:$median, min:$min, max:$max, all:$walls},
          cpu_s:{user_median:$user, sys_median:$sys}, peak_rss_bytes:$rss, pages:$pages,
          events:$events, simulated_s:$sim, events_per_wall_s:$eps, sim_s_per_wall_s:$sps,
          rss_bytes_per_page:$bpp, target:{rss_bytes_max:$rss_limit, sim_s_per_wall_s_min:10},
          result:$result}'
}

# ---- seed-hour ----------------------------------------------------------------

# The seed for an hour (its 30-minute compaction soak's scale): issue 33's
# target is 20 s.  Past ~8.5 simulated minutes the scan period drops below
# 1 s, so this is where the scanner's and the faults' costs per simulated
# second show.
bench_seed_hour() {
    local pages=$((SEED_GIB * PAGES_PER_GIB))
    bench_timed seed-hour "$pages" "$BIN" run seed -q --duration 3600 --json @JSON@
    local events sim tables eps sps ok=PASS
    events=$(jq '.stats.events' "$B_JSON")
    sim=$(jq '.simulated_seconds' "$B_JSON")
    tables=$(jq '.stats.tables_materialised' "$B_JSON")
    eps=$(calc "$events / $B_MEDIAN")
    sps=$(calc "$sim / $B_MEDIAN")
    awk -v m="$B_MEDIAN" 'BEGIN { exit !(m <= 20) }' || ok=FAIL
    table_row seed-hour "$B_MEDIAN" "$B_MIN-$B_MAX" "$(fmt "$B_RSS_MIB" %.1f)" "$(fmt "$eps" %.0f)" \
        "$(fmt "$sps" %.1f)" "$(fmt "$B_BPP" %.2f)" "$ok  (median <= 20 s; $tables tables held)"
    emit_json --arg bench seed-hour --argjson runs "$RUNS" --argjson walls "$B_WALLS" \
        --argjson median "$B_MEDIAN" --argjson min "$B_MIN" --argjson max "$B_MAX" \
        --argjson user "$B_USER" --argjson sys "$B_SYS" \
        --argjson rss "$B_RSS_BYTES" --argjson pages "$pages" --argjson events "$events" \
        --argjson tables "$tables" --argjson sim "$sim" --argjson eps "$eps" --argjson sps "$sps" \
        --argjson bpp "$B_BPP" --arg result "$ok" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench, runs:$runs,
          wall_s:{median:$median, min:$min, max:$max, all:$walls},
          cpu_s:{user_median:$user, sys_median:$sys}, peak_rss_bytes:$rss, pages:$pages,
          events:$events, tables_materialised:$tables, simulated_s:$sim, events_per_wall_s:$eps,
          sim_s_per_wall_s:$sps, rss_bytes_per_page:$bpp, target:{median_wall_s_max:20}, result:$result}'
}

# ---- cpus ---------------------------------------------------------------------

# The seed's workload grown with the machine: 384 CPUs / 120 GiB (the seed),
# then 8 sockets x 1 node x N cores x SMT-2 with 4 GiB per CPU:
# 1,024 CPUs / 4 TiB (scale), 2,048 / 8 TiB, 4,096 / 16 TiB, one thread per
# CPU, BENCH_CPUS_DURATION (60) simulated seconds.  Issue 33's target:
# 4,096 CPUs within 4x the time of 1,024 and under 2 GiB of RSS.
CPUS_POINTS=(384 1024 2048 4096)
cpus_args() { # CPUS: the --set arguments for that point
    local cpus=$1
    (( cpus == 384 )) && return 0
    local cores=$((cpus / 16)) gib=$((cpus * 4))
    echo --set machine.sockets=8 --set machine.nodes_per_socket=1 \
        --set "machine.cores_per_node=$cores" --set machine.threads_per_core=2 \
        --set "machine.cpus=$cpus" --set "machine.mem_per_node_gib=$((gib / 8 + gib / 32))" \
        --set "workload.threads=$cpus" --set "workload.memory_gib=$gib"
}
bench_cpus() {
    local cpus gib pages events sim tables eps sps ok median_1024="" j_points="[]"
    local -a args
    for cpus in "${CPUS_POINTS[@]}"; do
        if (( cpus == 384 )); then gib=$SEED_GIB; else gib=$((cpus * 4)); fi
        pages=$((gib * PAGES_PER_GIB))
        read -r -a args <<< "$(cpus_args "$cpus")"
        bench_timed "cpus-$cpus" "$pages" "$BIN" run seed -q "${args[@]}" \
            --duration "$CPUS_DURATION" --json @JSON@
        events=$(jq '.stats.events' "$B_JSON")
        sim=$(jq '.simulated_seconds' "$B_JSON")
        tables=$(jq '.stats.tables_materialised' "$B_JSON")
        eps=$(calc "$events / $B_MEDIAN")
        sps=$(calc "$sim / $B_MEDIAN")
        (( cpus == 1024 )) && median_1024=$B_MEDIAN
        ok="-  (${gib} GiB, ${CPUS_DURATION} s, $tables tables held"
        if [[ -n $median_1024 ]] && (( cpus > 1024 )); then
            ok+=", $(fmt "$(calc "$B_MEDIAN / $median_1024")" %.2f)x the 1,024 point"
        fi
        ok+=")"
        if (( cpus == 4096 )); then
            local verdict=PASS
            (( B_RSS_BYTES < 2 * 1024 * MIB )) || verdict=FAIL
            [[ -n $median_1024 ]] && ! awk -v m="$B_MEDIAN" -v b="$median_1024" \
                'BEGIN { exit !(m <= 4 * b) }' && verdict=FAIL
            ok="$verdict  (RSS < 2 GiB, median <= 4x 1,024's; ${ok#-  (}"
        fi
        table_row "cpus-$cpus" "$B_MEDIAN" "$B_MIN-$B_MAX" "$(fmt "$B_RSS_MIB" %.1f)" "$(fmt "$eps" %.0f)" \
            "$(fmt "$sps" %.2f)" "$(fmt "$B_BPP" %.2f)" "$ok"
        j_points=$(jq -c --argjson cpus "$cpus" --argjson gib "$gib" --argjson walls "$B_WALLS" \
            --argjson median "$B_MEDIAN" --argjson min "$B_MIN" --argjson max "$B_MAX" \
            --argjson user "$B_USER" --argjson sys "$B_SYS" --argjson rss "$B_RSS_BYTES" \
            --argjson events "$events" --argjson tables "$tables" --argjson sim "$sim" \
            '. + [{cpus:$cpus, memory_gib:$gib, wall_s:{median:$median, min:$min, max:$max, all:$walls},
                   cpu_s:{user_median:$user, sys_median:$sys}, peak_rss_bytes:$rss, events:$events,
                   tables_materialised:$tables, simulated_s:$sim}]' <<< "$j_points")
    done
    emit_json --arg bench cpus --argjson runs "$RUNS" --argjson points "$j_points" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench, runs:$runs,
          points:$points, target:{cpus_4096:{rss_bytes_max:2147483648, median_max_x_1024:4}}}'
}

# ---- growth -------------------------------------------------------------------

# growth_series KIND: KIND=memory (30/60/120/240 GiB, 180 s) or
# duration (45/90/180/360 s, 120 GiB).  Index 2 is the 1x point.
# RSS is judged per PTE table (2 MiB of the workload): TABLE_UPFRONT bytes
# each from set-up on (scenario.c: TABLE_FIXED_BYTES), and TABLE_HELD more
# for each table held page by page (stats.tables_materialised: 512 page
# states of 8 bytes, 512 PTE bytes and the table's 168-byte struct,
# written when a path first reaches it), which a run reaches as it goes.
TABLE_UPFRONT=64
TABLE_HELD=4776
growth_series() {
    local kind=$1
    local -a ks=(0.25 0.5 1 2) vals walls users syss rss pages events held secs
    if [[ $kind == memory ]]; then vals=(30 60 120 240); else vals=(45 90 180 360); fi
    local i args
    if [[ $WARMUP == 1 ]]; then
        echo "  growth-$kind: warm-up (${vals[0]})" >&2
        if [[ $kind == memory ]]; then args=(--set "workload.memory_gib=${vals[0]}" --duration 180)
        else args=(--duration "${vals[0]}"); fi
        timed_run "growth-$kind-warm" "$BIN" run seed -q "${args[@]}"
    fi
    for i in 0 1 2 3; do
        if [[ $kind == memory ]]; then
            args=(--set "workload.memory_gib=${vals[i]}" --duration 180)
            pages[i]=$((vals[i] * PAGES_PER_GIB))
            secs[i]=180
        else
            args=(--duration "${vals[i]}")
            pages[i]=$((SEED_GIB * PAGES_PER_GIB))
            secs[i]=${vals[i]}
        fi
        echo "  growth-$kind: ${vals[i]}" >&2
        timed_run "growth-$kind-$i" "$BIN" run seed -q "${args[@]}" --json "$WORK/growth-$kind-$i.json"
        walls[i]=$R_WALL
        users[i]=$R_USER
        syss[i]=$R_SYS
        rss[i]=$((R_RSS_KB * 1024))
        events[i]=$(jq '.stats.events' "$WORK/growth-$kind-$i.json")
        held[i]=$(jq '.stats.tables_materialised' "$WORK/growth-$kind-$i.json")
    done

    local unit label
    if [[ $kind == memory ]]; then unit=GiB; label="memory (180 s)"; else unit=s; label="duration (120 GiB)"; fi
    echo "growth vs $label"
    local fmtg="%-5s %-7s %8s %11s %6s %6s %8s %6s %9s %8s %8s %9s %9s  %s\n"
    # shellcheck disable=SC2059
    printf "$fmtg" k "$kind" "wall s" "user/sys s" "x1x" "step" "RSS MiB" "x1x" "events" "us/event" "ms/sim s" \
        "held" "B/table" "wall linear (x1x in [0.8k,1.2k])"
    local all_lin=PASS sublin=PASS margs=() per_ev=() ratio rratio step marg lin upev
    for i in 0 1 2 3; do
        ratio=$(calc "${walls[i]} / ${walls[2]}")
        rratio=$(calc "${rss[i]} / ${rss[2]}")
        if (( i == 0 )); then step="-"; else step=$(fmt "$(calc "${walls[i]} / ${walls[i-1]}")" %.2f); fi
        upev=$(calc "${walls[i]} * 1000000 / ${events[i]}")
        per_ev+=("$upev")
        # B/table: vs duration, the RSS per table held beyond the 1/4x
        # point's; vs memory, the RSS per table of the workload beyond the
        # previous point's, less what the extra tables held took at TABLE_HELD.
        marg="-"
        if (( i > 0 )); then
            if [[ $kind == duration ]] && (( held[i] > held[0] )); then
                marg=$(calc "(${rss[i]} - ${rss[0]}) / (${held[i]} - ${held[0]})")
            elif [[ $kind == memory ]]; then
                marg=$(calc "(${rss[i]} - ${rss[i-1]} - $TABLE_HELD * (${held[i]} - ${held[i-1]})) / ((${pages[i]} - ${pages[i-1]}) / 512)")
            fi
            [[ $marg != - ]] && { margs+=("$marg"); marg=$(fmt "$marg" %.0f); }
        fi
        if (( i == 2 )); then lin="(1x)"
        elif awk -v r="$ratio" -v k="${ks[i]}" 'BEGIN { exit !(r >= 0.8 * k && r <= 1.2 * k) }'; then lin=PASS
        else lin=FAIL; all_lin=FAIL; fi
        # Super-linear: wall grows more than 1.2x the size ratio between
        # the smaller and the larger of this point and 1x.
        if (( i != 2 )) && ! awk -v r="$ratio" -v k="${ks[i]}" \
                'BEGIN { exit !(k > 1 ? r <= 1.2 * k : r >= k / 1.2) }'; then
            sublin=FAIL; lin+=" (super-linear)"
        fi
        # shellcheck disable=SC2059
        printf "$fmtg" "${ks[i]}" "${vals[i]} $unit" "$(fmt "${walls[i]}" %.3f)" \
            "$(fmt "${users[i]}" %.2f)/$(fmt "${syss[i]}" %.2f)" "$(fmt "$ratio" %.2f)" "$step" \
            "$(fmt "$(calc "${rss[i]} / $MIB")" %.1f)" "$(fmt "$rratio" %.2f)" "${events[i]}" \
            "$(fmt "$upev" %.3f)" "$(fmt "$(calc "${walls[i]} * 1000 / ${secs[i]}")" %.2f)" "${held[i]}" "$marg" "$lin"
    done
    echo "wall linear within 20%: $all_lin;  wall at most linear (growth <= 1.2x size): $sublin"
    # Wall per event: the cost of an event should not grow with the run
    # (vs duration) or the memory; each point within 25% of 1x's (fixed
    # costs, start-up and set-up, weigh on the small points).
    local ev_verdict=PASS
    for i in 0 1 3; do
        awk -v a="${per_ev[i]}" -v b="${per_ev[2]}" 'BEGIN { exit !(a <= 1.25 * b) }' || ev_verdict=FAIL
    done
    echo "wall per event at most 1.25x the 1x point's: $ev_verdict"
    local rss_verdict=PASS med want
    if (( ${#margs[@]} )); then
        med=$(stats "${margs[*]}" | cut -d' ' -f1)
        for marg in "${margs[@]}"; do
            awk -v m="$marg" -v d="$med" 'BEGIN { exit !(m >= 0.8 * d && m <= 1.2 * d) }' || rss_verdict=FAIL
        done
    else
        rss_verdict=FAIL # no table held beyond the 1/4x point: nothing to judge
    fi
    if [[ $kind == memory ]]; then
        # Up front: small differences of RSS (a few MiB), where a 2 MiB
        # huge page of rounding at the end of the page-state and PTE arrays
        # weighs (118 B a table at the 30 -> 60 GiB step, against 8-16 at
        # the others): each at most 1.5x plus those two pages over the
        # step's tables, the median at most 1.2x.
        rss_verdict=PASS
        for i in 1 2 3; do
            awk -v m="${margs[i-1]}" -v w="$TABLE_UPFRONT" -v t="$(( (pages[i] - pages[i-1]) / 512 ))" \
                'BEGIN { exit !(m <= 1.5 * w + 2 * 2097152 / t) }' || rss_verdict=FAIL
        done
        want=$TABLE_UPFRONT
    else
        want=$TABLE_HELD
    fi
    awk -v d="${med:-0}" -v w="$want" 'BEGIN { exit !(d <= 1.2 * w) }' || rss_verdict=FAIL
    if [[ $kind == memory ]]; then
        echo "RSS per table of the workload, up front (vs the previous point, less $TABLE_HELD B per extra table held):" \
             "$(printf '%.0f ' "${margs[@]}")-> each <= 1.5 x (+ 4 MiB of rounding) and median <= 1.2 x $TABLE_UPFRONT: $rss_verdict"
    else
        echo "RSS per table held (vs 45 s): $(printf '%.0f ' "${margs[@]}")-> constant within 20%" \
             "and <= 1.2 x $TABLE_HELD: $rss_verdict"
    fi
    echo

    local j_walls j_users j_syss j_rss j_pages j_events j_held j_vals j_margs
    j_walls=$(printf '%s\n' "${walls[@]}" | jq -sc .)
    j_users=$(printf '%s\n' "${users[@]}" | jq -sc .)
    j_syss=$(printf '%s\n' "${syss[@]}" | jq -sc .)
    j_rss=$(printf '%s\n' "${rss[@]}" | jq -sc .)
    j_pages=$(printf '%s\n' "${pages[@]}" | jq -sc .)
    j_events=$(printf '%s\n' "${events[@]}" | jq -sc .)
    j_held=$(printf '%s\n' "${held[@]}" | jq -sc .)
    j_vals=$(printf '%s\n' "${vals[@]}" | jq -sc .)
    if (( ${#margs[@]} )); then j_margs=$(printf '%s\n' "${margs[@]}" | jq -sc .); else j_margs=null; fi
    emit_json --arg bench "growth-$kind" --arg unit "$unit" --argjson vals "$j_vals" \
        --argjson walls "$j_walls" --argjson users "$j_users" --argjson syss "$j_syss" \
        --argjson rss "$j_rss" --argjson pages "$j_pages" \
        --argjson events "$j_events" --argjson held "$j_held" --argjson margs "$j_margs" \
        --arg wall_linear "$all_lin" --arg wall_sublinear "$sublin" --arg ev_result "$ev_verdict" \
        --arg rss_result "$rss_verdict" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench,
          k:[0.25,0.5,1,2], values:$vals, unit:$unit, wall_s:$walls, user_s:$users, sys_s:$syss,
          peak_rss_bytes:$rss, pages:$pages, events:$events, tables_materialised:$held,
          rss_bytes_per_table:$margs, wall_linear_20pct:$wall_linear,
          wall_at_most_linear:$wall_sublinear, wall_per_event_result:$ev_result, rss_result:$rss_result}'
}

bench_growth() {
    growth_series memory
    growth_series duration
}

# ---- callgrind ----------------------------------------------------------------

bench_callgrind() {
    local out=$WORK/callgrind.out ann=$WORK/callgrind.txt
    echo "  callgrind: seed, 5 s simulated (slow: ~50x)" >&2
    local t0 t1
    t0=$EPOCHREALTIME
    valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN" run seed -q --duration 5 \
        > "$WORK/callgrind.stdout" 2> "$WORK/callgrind.stderr" || {
        echo "bench/run.sh: valgrind failed" >&2; tail -n 20 "$WORK/callgrind.stderr" >&2; exit 1; }
    t1=$EPOCHREALTIME
    callgrind_annotate "$out" > "$ann" 2>/dev/null
    local total
    total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$ann")
    [[ $total =~ ^[0-9]+$ ]] || { echo "bench/run.sh: no PROGRAM TOTALS in callgrind_annotate output" >&2; exit 1; }
    local events
    events=$(awk '/simulation events/ { print $NF; exit }' "$WORK/callgrind.stdout")
    echo "callgrind: seed 5 s: $total instructions$([[ -n $events ]] && echo " ($events events, $(fmt "$(calc "$total / $events")" %.0f) Ir/event)")"
    echo "  (valgrind wall $(fmt "$(calc "$t1 - $t0")" %.1f) s)"
    echo "top 10 functions by Ir:"
    # Function lines follow the "Ir  file:function" header after PROGRAM TOTALS.
    local top
    top=$(awk '
        /PROGRAM TOTALS/ { seen = 1; next }
        seen && /file:function/ { body = 1; next }
        body && /^-+$/ { next }
        body && NF >= 2 && $1 ~ /^[0-9,]+$/ { print; if (++n == 10) exit }
    ' "$ann" | sed -E 's# \[[^]]*/numasim-bench\.[^]]*/numasim\]$##')
    printf '%s\n' "$top" | sed 's/^/  /'
    echo

    # JSON: [{ir, function}], function as "file:function [object]".
    printf '%s\n' "$top" | awk '{ gsub(",", "", $1); print $1 }' > "$WORK/top.ir"
    printf '%s\n' "$top" | sed -E 's/^ *[0-9,]+ *(\( *[0-9.]+%\))? *//' > "$WORK/top.fn"
    local j_top
    j_top=$(paste "$WORK/top.ir" "$WORK/top.fn" \
        | jq -Rc 'split("\t") | {ir: (.[0] | tonumber), function: (.[1:] | join("\t"))}' | jq -sc .)

    emit_json --arg bench callgrind --argjson ir "$total" --argjson top "$j_top" \
        --argjson events "${events:-null}" \
        '{time:$time, git:$git, binary:$binary, nproc:$nproc, quick:$quick, bench:$bench,
          command:"numasim run seed -q --duration 5", instructions:$ir, events:$events, top:$top}'
}

# ---- main -----------------------------------------------------------------

TABLE_BENCHES=0
for b in "${BENCHES[@]}"; do
    case "$b" in seed-run|seed-run-exact|seed-run-oracle|seed-table|scale|seed-hour|cpus) TABLE_BENCHES=1 ;; esac
done

# Timed benchmarks first, as one table; then growth and callgrind.
for b in "${BENCHES[@]}"; do
    case "$b" in
        seed-run)   bench_seed_run seed-run 0.4; SEED_RUN_MEDIAN=$B_MEDIAN ;;
        seed-run-exact) bench_seed_run seed-run-exact 1.5 --exact ;;
        seed-run-oracle)
            if [[ -z ${SEED_RUN_MEDIAN:-} ]]; then
                bench_seed_run seed-run 0.4; SEED_RUN_MEDIAN=$B_MEDIAN
            fi
            # issue 14: the oracle costs at most 3x the plain run
            bench_seed_run seed-run-oracle "$(fmt "$(calc "3 * $SEED_RUN_MEDIAN")" %.2f)" --oracle ;;
        seed-table) bench_seed_table ;;
        scale)      bench_scale ;;
        seed-hour)  bench_seed_hour ;;
        cpus)       bench_cpus ;;
    esac
done
[[ $TABLE_BENCHES == 1 ]] && echo
for b in "${BENCHES[@]}"; do
    case "$b" in
        growth)    bench_growth ;;
        callgrind) bench_callgrind ;;
    esac
done

echo "results: $LATEST"
