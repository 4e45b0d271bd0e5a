#!/usr/bin/env bash
# numaload on this machine for a few seconds: a valid run JSON that
# 'numasim compare' and 'numaload --table' read; keys it cannot honour are
# FILE:LINE errors with exit status 2 and no output file.
set -euo pipefail
: "${NUMASIM:?}" "${TMPDIR:?}"
NUMALOAD=${NUMALOAD:-$(dirname "$NUMASIM")/numaload}
[[ -x $NUMALOAD ]] || { echo "no numaload at $NUMALOAD"; exit 1; }

cpus=$(nproc)
threads=$(( cpus < 2 ? 1 : 2 ))
cat >"$TMPDIR/here.ini" <<EOF
# an empty [machine]: numaload reads this machine
[machine]

[workload]
threads = $threads
memory_gib = 0.0625
private_fraction = 0.5
private_access_share = 0.9
hot_fraction = 0.1
hot_access_share = 0.8
cpu_ns_per_op = 50
# what numaload does not do, at numasim's default (off), is accepted
madvise_dontneed_every_ms = 0
migrate_call = none

[tunables]
transparent_hugepage.enabled = never

[run]
duration_s = 3
seed = 3
exact = false
compact_memory_every_s = 0
EOF

"$NUMALOAD" "$TMPDIR/here.ini" --quiet --json "$TMPDIR/real.json"
test -s "$TMPDIR/real.json"
ls "$TMPDIR" | grep -q 'real.json.' && { echo "temporary file left behind"; exit 1; }

# the run JSON's shape
grep -q '"kernel": "linux-' "$TMPDIR/real.json"
grep -q '"generator": "numaload"' "$TMPDIR/real.json"
grep -q '"numa_pte_updates": [0-9]' "$TMPDIR/real.json"
grep -q '"nr_tlb_remote_flush": \(null\|[0-9]\)' "$TMPDIR/real.json"
n=$(tr -d ' \n' <"$TMPDIR/real.json" | grep -o '"t_s":\[[0-9,]*\]' | tr -cd ',' | wc -c)
[[ $n -eq 2 ]] || { echo "expected 3 per-second samples, got $((n + 1))"; exit 1; }
# every page of the workload is counted on this machine's nodes (16 MiB per thread...)
pages=$(tr -d ' \n' <"$TMPDIR/real.json" | grep -o '"workload_pages_per_node_start":\[[0-9,]*\]' |
        grep -o '\[.*\]' | tr -d '[]' | tr ',' '\n' | awk '{s += $1} END {print s}')
[[ $pages -eq 16384 ]] || { echo "expected 16384 workload pages in numa_maps, got $pages"; exit 1; }
tp=$(grep -o '"throughput_ops_per_s": [0-9.e+]*' "$TMPDIR/real.json" | awk '{print $2}')
awk -v t="$tp" 'BEGIN {exit !(t > 0)}' || { echo "no operations counted"; exit 1; }

# numasim's tools read it
"$NUMASIM" compare "$TMPDIR/real.json" "$TMPDIR/real.json" >"$TMPDIR/compare.txt"
grep -q 'Ops NUMA PTE updates' "$TMPDIR/compare.txt"
grep -q "real#1" "$TMPDIR/compare.txt"
"$NUMASIM" run "$TMPDIR/here.ini" --json "$TMPDIR/sim.json" >/dev/null 2>&1
"$NUMALOAD" --table here "$TMPDIR/real.json" "$TMPDIR/sim.json" >"$TMPDIR/table.txt"
grep -q 'numa_hint_faults' "$TMPDIR/table.txt"
grep -q 'compared figure' "$TMPDIR/table.txt"

# keys numaload cannot honour, and a machine that is not this one
bad() {
    local ini=$1 want=$2 rc=0
    "$NUMALOAD" "$ini" --quiet --json "$TMPDIR/bad.json" 2>"$TMPDIR/err" || rc=$?
    [[ $rc -eq 2 ]] || { echo "$ini: exit $rc, expected 2"; cat "$TMPDIR/err"; exit 1; }
    grep -qF -- "$want" "$TMPDIR/err" || { echo "$ini: expected '$want' in:"; cat "$TMPDIR/err"; exit 1; }
    [[ ! -e $TMPDIR/bad.json ]] || { echo "$ini: output written"; exit 1; }
}
printf '[workload]\nthreads = 1\n\n[costs]\nipi_handler_ns = 900\n[machine]\n' >"$TMPDIR/costs.ini"
bad "$TMPDIR/costs.ini" "$TMPDIR/costs.ini:5: costs.ipi_handler_ns: numaload cannot honour"
printf '[kernel]\nname = v6.12\n[machine]\n[workload]\n' >"$TMPDIR/kernel.ini"
bad "$TMPDIR/kernel.ini" "$TMPDIR/kernel.ini:2: kernel.name:"
printf '[machine]\nsockets = 64\n[workload]\n' >"$TMPDIR/machine.ini"
bad "$TMPDIR/machine.ini" "$TMPDIR/machine.ini:2: machine.sockets: 64, but this machine has"
printf '[workload]\nthreads = 1\nbogus = 1\n[machine]\n' >"$TMPDIR/unknown.ini"
bad "$TMPDIR/unknown.ini" "$TMPDIR/unknown.ini:3: workload.bogus: unknown key"
# issue 28: keys numaload accepted and silently ignored
printf '[machine]\n[workload]\nthreads = 1\nmadvise_dontneed_every_ms = 5\n' >"$TMPDIR/madv.ini"
bad "$TMPDIR/madv.ini" "$TMPDIR/madv.ini:4: workload.madvise_dontneed_every_ms: numaload cannot honour"
printf '[machine]\n[workload]\n[tunables]\ntransparent_hugepage.enabled = always\n' >"$TMPDIR/thp.ini"
bad "$TMPDIR/thp.ini" "$TMPDIR/thp.ini:4: transparent_hugepage.enabled: numaload cannot honour"
printf '[machine]\n[workload]\n[run]\nexact = true\ncompact_memory_every_s = 5\n' >"$TMPDIR/run.ini"
bad "$TMPDIR/run.ini" "$TMPDIR/run.ini:4: run.exact: numaload cannot honour"
rc=0
"$NUMALOAD" "$TMPDIR/here.ini" --set workload.madvise_cold_every_ms=100 --json "$TMPDIR/bad.json" 2>"$TMPDIR/err" || rc=$?
[[ $rc -eq 2 && ! -e $TMPDIR/bad.json ]] &&
    grep -q -- "--set: workload.madvise_cold_every_ms: numaload cannot honour .*only numasim's default, 0," "$TMPDIR/err"
rc=0
"$NUMALOAD" "$TMPDIR/here.ini" --set costs.dram_local_ns=80 --json "$TMPDIR/bad.json" 2>"$TMPDIR/err" || rc=$?
[[ $rc -eq 2 ]] && grep -q -- '--set: costs.dram_local_ns: numaload cannot honour' "$TMPDIR/err"
rc=0
"$NUMALOAD" --table x "$TMPDIR/costs.ini" "$TMPDIR/sim.json" >/dev/null 2>"$TMPDIR/err" || rc=$?
[[ $rc -eq 2 ]] || { echo "--table with a bad file: exit $rc"; exit 1; }
# --version: numasim's version and the same build as numasim
v=$("$NUMALOAD" --version)
[[ $v == "numaload ${v#numaload }" && $v == *"(build "* ]] || { echo "numaload --version: $v"; exit 1; }
[[ ${v#numaload } == "$("$NUMASIM" --version | sed 's/^numasim //')" ]] ||
    { echo "numaload and numasim are of different builds: $v"; exit 1; }
# --table warns when the machines differ (a scenario without [machine]
# runs numaload on the box at hand, numasim on its own 384 CPUs)
"$NUMASIM" run small --duration 1 -q --json "$TMPDIR/small.json" >/dev/null
"$NUMASIM" run seed --duration 1 -q --json "$TMPDIR/seed.json" >/dev/null
"$NUMALOAD" --table w "$TMPDIR/small.json" "$TMPDIR/seed.json" > "$TMPDIR/w.txt"
grep -q '^w: WARNING: the machines differ: real 2 sockets, 2 nodes, 16 CPUs; numasim 2 sockets, 2 nodes, 384 CPUs' \
    "$TMPDIR/w.txt" || { echo "--table: no shape warning: $(head -2 "$TMPDIR/w.txt")"; exit 1; }
"$NUMALOAD" --table same "$TMPDIR/small.json" "$TMPDIR/small.json" | grep -q WARNING &&
    { echo "--table warned on one machine"; exit 1; }
echo ok
