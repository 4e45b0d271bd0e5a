#!/usr/bin/env bash
# numaload profile --quick on this machine: exit 0 in a few seconds; the
# JSON has every figure, the measured ones with positive medians, the ones
# this machine cannot give reported as not measured with why; the INI holds
# only [machine] and [costs] keys and 'numasim run small --costs' applies
# them (its JSON shows the profiled values); refusals exit non-zero with a
# message and write nothing.
set -euo pipefail
: "${NUMASIM:?}" "${TMPDIR:?}"
NUMALOAD=${NUMALOAD:-$(dirname "$NUMASIM")/numaload}
[[ -x $NUMALOAD ]] || { echo "no numaload at $NUMALOAD"; exit 1; }

start=$(date +%s)
"$NUMALOAD" profile --quick --json "$TMPDIR/p.json" --ini "$TMPDIR/p.ini"
elapsed=$(( $(date +%s) - start ))
(( elapsed <= 20 )) || { echo "profile --quick took ${elapsed}s"; exit 1; }
ls "$TMPDIR" | grep -q 'p\.\(json\|ini\)\.' && { echo "temporary file left behind"; exit 1; }

# the INI: comments, [machine] and [costs] only, each key after its spread
grep -v '^\(;.*\|\[machine\]\|\[costs\]\|[a-z_]* = [0-9.e+-]*\|\)$' "$TMPDIR/p.ini" &&
    { echo "unexpected line in the INI"; exit 1; }
grep -q '^dram_local_ns = ' "$TMPDIR/p.ini"
grep -q '^pte_update_ns = ' "$TMPDIR/p.ini"
grep -B1 '^[a-z_]* = ' "$TMPDIR/p.ini" | grep -q '^; median of '

"$NUMASIM" run small --costs "$TMPDIR/p.ini" --duration 1 -q --json "$TMPDIR/run.json" >/dev/null

python3 - "$TMPDIR/p.json" "$TMPDIR/p.ini" "$TMPDIR/run.json" <<'PY'
import json, sys
prof, ini, run = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
figs = prof["figures"]
want = ["cpu_ghz", "tlb_entries", "ipi_send_base", "ipi_send_per_cpu", "ipi_send_remote", "ipi_callback",
        "pte_update", "pte_skip", "dram_local", "dram_remote", "move_pages_per_page", "page_walk"]
assert list(figs) == want, list(figs)
for name in ("dram_local", "pte_update", "cpu_ghz"):
    f = figs[name]
    assert f["measured"] and f["median"] > 0 and f["trials"] >= 2, (name, f)
    assert f["min"] <= f["p10"] <= f["median"] <= f["p90"] <= f["max"], (name, f)
# the flush-round curve is there whatever the CPU count: y(0) and y(1)
curve = figs["ipi_send_base"]["curve"]["points"]
assert len(curve) >= 2 and all(p["median"] > 0 for p in curve), curve
for name, f in figs.items():
    if not f["measured"]:
        assert f["not_measured"] and not f["written"], (name, f)
    if f["written"]:
        assert f["measured"] and f["key"], (name, f)
assert not figs["tlb_entries"]["measured"]
if prof["numa_nodes"] < 2:
    for name in ("dram_remote", "move_pages_per_page"):
        assert figs[name]["not_measured"] == "not measurable: one NUMA node with memory", figs[name]
if len(prof["cpus"]) < 3:
    assert not figs["ipi_callback"]["measured"]
# the slope is written for both kinds of target, or for neither
assert figs["ipi_send_remote"]["written"] == figs["ipi_send_per_cpu"]["written"]
if figs["ipi_send_remote"]["written"]:
    assert figs["ipi_send_remote"]["median"] == figs["ipi_send_per_cpu"]["median"]
# every written key: in the INI, and in the run's resolved scenario
sc = run["scenario"]
for name, f in figs.items():
    if not f["written"]:
        continue
    section, key = f["key"].split(".")
    assert "\n%s = " % key in ini, key
    assert sc[section][key] == f["median"], (key, sc[section][key], f["median"])
PY

# refusals: a CPU that cannot run this process, a figure required but not
# measurable here, an unknown group: non-zero, a message, nothing written
rc=0
"$NUMALOAD" profile --quick --cpus 0,4095 --json "$TMPDIR/no.json" 2>"$TMPDIR/err" || rc=$?
[[ $rc -eq 2 ]] && grep -q 'CPU 4095 is offline or outside' "$TMPDIR/err"
rc=0
"$NUMALOAD" profile --quick --require bogus 2>"$TMPDIR/err" || rc=$?
[[ $rc -eq 2 ]] && grep -q "unknown group 'bogus'" "$TMPDIR/err"
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["numa_nodes"] >= 2)' "$TMPDIR/p.json"; then
    rc=0
    "$NUMALOAD" profile --quick --require migrate --json "$TMPDIR/no.json" 2>"$TMPDIR/err" || rc=$?
    [[ $rc -eq 1 ]] && grep -q 'require migrate: .*one NUMA node' "$TMPDIR/err"
fi
[[ ! -e $TMPDIR/no.json ]]

# a --costs file with another section is refused at FILE:LINE: key
printf '[costs]\npte_update_ns = 50\n[tunables]\nkernel.numa_balancing = 0\n' >"$TMPDIR/bad.ini"
rc=0
"$NUMASIM" run small --costs "$TMPDIR/bad.ini" -q 2>"$TMPDIR/err" >/dev/null || rc=$?
[[ $rc -eq 2 ]] && grep -q "bad.ini:3: tunables: a --costs file holds only \[machine\] and \[costs\] sections" "$TMPDIR/err"
echo ok
