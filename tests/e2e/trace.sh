#!/usr/bin/env bash
# numasim run --trace: the JSON parses, "X" spans nest on their CPU track,
# every text event line matches the mmtests ftrace regex and the begin/end
# lines pair up per CPU, the event counts agree with the run's counters,
# trace-cmd report reads FILE.dat and prints the .txt's events (where
# trace-cmd is installed), the sched NUMA tracepoints of a small numa01
# carry the tasks' ids in the kernel's layout, a window keeps only its
# events, FILE.json.gz holds the same JSON in the same bytes every run and
# is chosen above 16 MiB, and bad options exit 2 writing nothing.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/trace.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
py=""
if have python3; then py=python3; fi

# ---- the whole run of a short small: counts against the counters ----------
"$NUMASIM" run small --quiet --duration 1.05 --json "$work/r.json" --trace "$work/t.json" \
    >/dev/null 2>"$work/err" || { cat "$work/err" >&2; fail "traced run failed"; }
[ -s "$work/t.json" ] && [ -s "$work/t.txt" ] || fail "FILE.json / FILE.txt missing (suffix not stripped?)"
[ ! -e "$work/t.json.json" ] || fail "wrote t.json.json"
grep -q '^trace: [0-9]* events' "$work/err" || fail "no event count on stderr: $(cat "$work/err")"
ls "$work" | grep -q tmp && fail "temporary files left: $(ls "$work")"

# JSON: parses; X spans nest within any overlapping span on their track
if [ -n "$py" ]; then
    $py - "$work/t.json" >"$work/jsoncheck" <<'EOF' || fail "JSON check: $(cat "$work/jsoncheck")"
import json, sys
try:
    ev = json.load(open(sys.argv[1]))["traceEvents"]
except ValueError as e:
    print("JSON does not parse:", e); sys.exit(1)
tracks = {}
for e in ev:
    if e.get("ph") == "X":
        ts = round(e["ts"] * 1000); dur = round(e["dur"] * 1000)
        tracks.setdefault(e["tid"], []).append((ts, -dur))
n = bad = 0
for spans in tracks.values():
    spans.sort()
    stack = []
    for ts, nd in spans:
        n += 1
        end = ts - nd
        while stack and stack[-1] <= ts:
            stack.pop()
        if stack and end > stack[-1]:
            bad += 1
        stack.append(end)
shoot = sum(1 for e in ev if e.get("name") == "tlb_flush" and e["args"]["reason"] == "remote shootdown")
migr = sum(1 for e in ev if e.get("name") == "numa_migration" and e["ph"] in ("X", "b"))
if bad or n == 0:
    print("X spans:", n, "not nested:", bad); sys.exit(1)
# every event has a category; the kernel's tracepoints carry their system's
cats = {"tlb", "migrate", "sched", "numa", "mmu_gather", "fault", "__metadata", "counters"}
nocat = [e for e in ev if e.get("cat") not in cats]
if nocat:
    print("events without a known cat:", len(nocat), nocat[0]); sys.exit(1)
for name, cat in (("tlb_flush", "tlb"), ("mm_migrate_pages", "migrate"), ("flush_round", "tlb"),
                  ("numa_mmu_gather", "mmu_gather"), ("numa_hint_fault", "fault")):
    if any(e.get("name") == name and e["cat"] != cat for e in ev):
        print(name, "not in cat", cat); sys.exit(1)
# flow arrows: each start has one finish with the same id, on the same CPU,
# after it in time (an arrow that points somewhere: the record is an instant
# of the step whose try_to_unmap_flush round follows) and in the file, inside
# a try_to_unmap_flush round on that CPU, 1 ns before its end (x86 here: the
# batch's flush always has a round)
starts, ends = {}, {}
for i, e in enumerate(ev):
    if e.get("ph") in ("s", "f"):
        d = starts if e["ph"] == "s" else ends
        if e["id"] in d:
            print("flow id used twice:", e); sys.exit(1)
        d[e["id"]] = (i, e)
rounds = {(e["tid"], round(e["ts"] + e["dur"] - 0.001, 3)) for e in ev
          if e.get("name") == "flush_round" and e["args"]["origin"] == "try_to_unmap_flush"}
if set(starts) != set(ends) or not starts:
    print("flow starts", len(starts), "finishes", len(ends)); sys.exit(1)
for fid, (i, s) in starts.items():
    j, f = ends[fid]
    if j < i or f["ts"] <= s["ts"] or f["tid"] != s["tid"] or f.get("bp") != "e" \
       or (f["tid"], round(f["ts"], 3)) not in rounds:
        print("flow", fid, "start", s, "finish", f); sys.exit(1)
batched = sum(1 for e in ev if e.get("name") == "tlb_ubc_flush_pending")
print(shoot, migr, len(starts), batched)
EOF
    read -r json_shoot json_migr json_flows json_batched <"$work/jsoncheck"
elif have jq; then
    jq empty "$work/t.json" || fail "JSON does not parse (jq)"
    echo "note: python3 missing: skipping the span nesting check"
else
    # minimal check: balanced brackets outside strings
    awk 'BEGIN { d = 0; bad = 0 }
         { line = $0; gsub(/"([^"\\]|\\.)*"/, "", line)
           n = split(line, ch, "")
           for (i = 1; i <= n; i++) {
               if (ch[i] == "{" || ch[i] == "[") d++
               else if (ch[i] == "}" || ch[i] == "]") { d--; if (d < 0) bad = 1 }
           } }
         END { exit (d != 0 || bad) }' "$work/t.json" || fail "JSON brackets unbalanced"
    echo "note: neither python3 nor jq: only a bracket-balance check of the JSON, no nesting check"
fi
grep -q '"displayTimeUnit":"ns"' "$work/t.json" || fail "no displayTimeUnit"
grep -q '"name":"thread_name","cat":"__metadata","ph":"M","pid":1,"tid":15,"args":{"name":"CPU 15"}' "$work/t.json" ||
    fail "no thread_name metadata for CPU 15"
grep -q '"ph":"C"' "$work/t.json" || fail "no counter events"

# text: header, the mmtests regex on every event line, per-CPU begin/end pairing,
# times non-decreasing
head -1 "$work/t.txt" | grep -qx '# tracer: nop' || fail "first line is not '# tracer: nop'"
grep -qx 'cpus=16' "$work/t.txt" || fail "no cpus=16 line"
re='^[[:space:]]*([a-zA-Z0-9-]*)[[:space:]]*(\[[0-9]*\])[[:space:]]*[.0-9a-zA-Z]*[[:space:]]*([0-9.]*):[[:space:]]*([a-zA-Z_]*):[[:space:]]*(.*)$'
bad=$(grep -v -e '^#' -e '^cpus=' "$work/t.txt" | grep -E -c -v "$re" || true)
[ "$bad" = 0 ] || fail "$bad text lines do not match the mmtests regex, e.g.: $(grep -v -e '^#' -e '^cpus=' "$work/t.txt" | grep -E -v "$re" | head -2)"
awk '/^#/ || /^cpus=/ { next }
     { cpu = $2; t = $3 + 0; ev = $4; sub(/:$/, "", ev)
       if (t < last) { print "time goes back at line " NR; bad = 1; exit 1 }
       last = t
       if (ev ~ /_begin$/) { sub(/_begin$/, "", ev); st[cpu, ++d[cpu]] = ev; nb++ }
       else if (ev ~ /_end$/) { sub(/_end$/, "", ev)
           if (d[cpu] < 1 || st[cpu, d[cpu]] != ev) { print "unmatched end at line " NR ": " $0; bad = 1; exit 1 }
           d[cpu]-- } }
     END { if (bad) exit 1; for (k in d) if (d[k]) { print "unclosed span on " k; exit 1 }
           if (!nb) { print "no spans"; exit 1 } }' "$work/t.txt" || fail "text spans do not pair up"

# counts vs the run's counters (window = the whole run)
num() { sed -n "s/.*\"$1\": *\([0-9][0-9]*\).*/\1/p" "$work/r.json" | head -1; }
recv=$(num nr_tlb_remote_flush_received)
shoot=$(grep -c 'tlb_flush: pages:.* reason:remote shootdown (1)' "$work/t.txt" || true)
wrong=$(grep -c 'tlb_flush: pages:.* reason:remote wrong CPU (5)' "$work/t.txt" || true)
[ "$recv" -gt 0 ] || fail "no remote flushes in the run: the test needs some"
[ "$shoot" = "$recv" ] || fail "remote shootdown lines $shoot (+$wrong wrong CPU) != nr_tlb_remote_flush_received $recv"
rounds=$(grep -c 'flush_round_begin:' "$work/t.txt" || true)
[ "$rounds" = "$(num nr_tlb_remote_flush)" ] || fail "flush_round spans $rounds != nr_tlb_remote_flush $(num nr_tlb_remote_flush)"
migrated=$(num numa_pages_migrated)
succ=$(awk '/ mm_migrate_pages: .*reason=numa_misplaced/ { for (i = 1; i <= NF; i++) if ($i ~ /^nr_succeeded=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }' "$work/t.txt")
[ "$succ" = "$migrated" ] || fail "mm_migrate_pages nr_succeeded sum $succ != numa_pages_migrated $migrated"
spans=$(grep -c 'numa_migration_begin:' "$work/t.txt" || true)
# a span is written when its migration completes; stats.migrations counts it
# at the unmap, so migrations still in flight at the end (at most one per
# CPU) have no span yet
inflight=$(( $(num migrations) - spans ))
[ "$inflight" -ge 0 ] && [ "$inflight" -le 16 ] ||
    fail "numa_migration spans $spans vs stats.migrations $(num migrations): $inflight in flight"
[ "$migrated" -gt 0 ] || fail "nothing migrated: the test needs migrations"
passes=$(grep -c 'numa_scan_pass_begin:' "$work/t.txt" || true)
[ "$passes" = "$(num passes)" ] || fail "numa_scan_pass spans $passes != stats.passes $(num passes)"
if [ -n "$py" ]; then
    [ "$json_shoot" = "$recv" ] || fail "JSON remote shootdowns $json_shoot != $recv"
    [ "$json_migr" = "$spans" ] || fail "JSON numa_migration spans $json_migr != $spans"
    # one arrow per batch: per arch_tlbbatch_flush that flushed
    [ "$json_flows" = "$(num batch_flushes)" ] ||
        fail "JSON flow arrows $json_flows != stats.batch_flushes $(num batch_flushes)"
    # the delay histogram counts every batched PTE once
    hist=$($py -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))["histograms"]["migrate_flush_delay_ns"]["count"]))' "$work/r.json")
    [ "$hist" = "$json_batched" ] || fail "delay histogram counts $hist != tlb_ubc_flush_pending events $json_batched"
fi

# same inputs, same files
"$NUMASIM" run small --quiet --duration 1.05 --trace "$work/u.json" >/dev/null 2>&1 || fail "second traced run failed"
cmp -s "$work/t.txt" "$work/u.txt" && cmp -s "$work/t.json" "$work/u.json" || fail "two identical runs gave different traces"
cmp -s "$work/t.dat" "$work/u.dat" || fail "two identical runs gave different trace.dat files"

# ---- trace.dat: trace-cmd report prints the events of the .txt ---------------
[ -s "$work/t.dat" ] || fail "no FILE.dat"
[ "$(head -c 10 "$work/t.dat" | tail -c 7)" = tracing ] || fail "t.dat has no trace.dat magic"
if have trace-cmd; then
    "$NUMASIM" run small --quiet --duration 1.05 --trace "$work/d" --trace-window 1.0:1.01 \
        >/dev/null 2>&1 || fail "traced run for trace-cmd failed"
    trace-cmd report "$work/d.dat" >"$work/report" 2>"$work/report.err" ||
        fail "trace-cmd report failed: $(head -3 "$work/report.err")"
    [ -s "$work/report.err" ] && fail "trace-cmd report complained: $(head -3 "$work/report.err")"
    for ev in 'tlb_flush: +pages=' 'mm_migrate_pages_start: +mode=MIGRATE_ASYNC reason=numa_misplaced' \
        'mm_migrate_pages: +nr_succeeded=' 'set_migration_pte: +addr=' 'remove_migration_pte: +addr=' \
        'numa_scan_pass_begin: +pte_updates=' 'numa_migration_end: +dur_ns=' 'flush_round_begin: +nr_ipis='; do
        grep -Eq "$ev" "$work/report" || fail "trace-cmd report shows no '$ev'"
    done
    # the same events as the .txt, but for the time's last digit (trace-cmd
    # rounds to the microsecond, the .txt truncates) and the order of events
    # of one time on different CPUs; tlb_flush is printed by trace-cmd's
    # own plugin for the tracepoint, in its words, so only counted
    norm() { grep -v -e '^#' -e '^cpus=' -e ' tlb_flush: ' | sed -e 's/  */ /g' -e 's/\] [0-9.]*:/]/' | sort; }
    norm <"$work/d.txt" >"$work/d.norm"
    norm <"$work/report" >"$work/r.norm"
    [ -s "$work/d.norm" ] || fail "the window has no events"
    cmp -s "$work/d.norm" "$work/r.norm" ||
        { diff "$work/d.norm" "$work/r.norm" | head -5 >&2; fail "trace-cmd report and the .txt differ"; }
    [ "$(grep -c ' tlb_flush: ' "$work/report")" = "$(grep -c ' tlb_flush: ' "$work/d.txt")" ] ||
        fail "trace-cmd report and the .txt have different tlb_flush counts"
    # every 'trace-cmd report' command docs/traces.md shows runs, on a trace
    # of the doc's own small run (its /tmp/small.dat and /tmp/n01.dat made here)
    "$NUMASIM" run small --quiet --duration 2 --trace "$work/doc-small" >/dev/null 2>&1 ||
        fail "the docs' small trace failed"
    "$NUMASIM" run numa01 --quiet --duration 10 --set machine.cores_per_node=4 \
        --set machine.threads_per_core=1 --set workload.threads=6 --set workload.memory_gib=0.25 \
        --trace "$work/doc-n01" --trace-events sched_move_numa,sched_swap_numa,sched_stick_numa,numa_migrate_result \
        >/dev/null 2>&1 || fail "the docs' numa01 trace failed"
    docs=$(dirname "$0")/../../docs/traces.md
    n=0
    while IFS= read -r line; do
        cmd=${line#    }
        cmd=${cmd%%#*}
        cmd=${cmd//\/tmp\/small.dat/$work/doc-small.dat}
        cmd=${cmd//\/tmp\/n01.dat/$work/doc-n01.dat}
        (set +o pipefail; eval "$cmd") >"$work/doc.out" 2>"$work/doc.err" || fail "docs/traces.md: '$line' failed: $(head -2 "$work/doc.err")"
        grep -q 'Failed\|rror' "$work/doc.err" && fail "docs/traces.md: '$line': $(head -2 "$work/doc.err")"
        [ -s "$work/doc.out" ] || fail "docs/traces.md: '$line' printed nothing"
        n=$((n + 1))
    done < <(grep -E '^    trace-cmd report ' "$docs")
    [ "$n" -ge 3 ] || fail "only $n trace-cmd commands found in docs/traces.md"
fi

# ---- the sched NUMA tracepoints: a small numa01 ------------------------------
# 2 processes x 6 threads on 2 nodes x 4 CPUs: in 10 s task_numa_migrate
# moves a task, swaps some and finds no CPU for others.  The events agree
# with the run's counters; pid, tgid (the process) and ngid (the group's
# first task) are the tasks'; trace-cmd report parses the kernel's formats.
numa01_small() {
    "$NUMASIM" run numa01 --quiet --duration 10 --seed 1 --set machine.cores_per_node=4 \
        --set machine.threads_per_core=1 --set workload.threads=6 --set workload.memory_gib=0.25 "$@"
}
numa01_small --json "$work/nr.json" --trace "$work/n" \
    --trace-events sched_move_numa,sched_swap_numa,sched_stick_numa,numa_migrate_result \
    >/dev/null 2>"$work/err" || fail "traced numa01 run failed: $(cat "$work/err")"
nnum() { sed -n "s/.*\"$1\": *\([0-9][0-9]*\).*/\1/p" "$work/nr.json" | head -1; }
ncount() { grep -c -E "$1" "$work/n.txt" || true; }
moves=$(ncount ' sched_move_numa: pid=')
swaps=$(ncount ' sched_swap_numa: src_pid=')
sticks=$(ncount ' sched_stick_numa: src_pid=')
[ "$moves" -gt 0 ] && [ "$swaps" -gt 0 ] && [ "$sticks" -gt 0 ] ||
    fail "numa01: moves $moves, swaps $swaps, sticks $sticks: the test needs each"
[ "$moves" = "$(nnum numa_task_moves)" ] || fail "sched_move_numa $moves != numa_task_moves $(nnum numa_task_moves)"
[ "$swaps" = "$(nnum numa_task_swaps)" ] || fail "sched_swap_numa $swaps != numa_task_swaps $(nnum numa_task_swaps)"
# numasim's numa_migrate_result: one per search, its outcome the tracepoint's
[ "$(ncount ' numa_migrate_result: ')" = $((moves + swaps + sticks)) ] ||
    fail "numa_migrate_result $(ncount ' numa_migrate_result: ') != $moves + $swaps + $sticks"
[ "$(ncount 'numa_migrate_result: outcome=moved ')" = "$moves" ] || fail "outcome=moved != sched_move_numa"
[ "$(ncount 'numa_migrate_result: outcome=swapped ')" = "$swaps" ] || fail "outcome=swapped != sched_swap_numa"
# a stick for want of a CPU has no partner: dst 0, CPU and node -1
[ "$(ncount 'sched_stick_numa: .* dst_pid=0 dst_tgid=0 dst_ngid=0 dst_cpu=-1 dst_nid=-1$')" = \
  "$(ncount 'numa_migrate_result: outcome=no_cpu ')" ] || fail "sched_stick_numa without a CPU != outcome=no_cpu"
if [ -n "$py" ]; then
    $py - "$work/n.txt" "$work/nr.json" >"$work/ncheck" <<'PYEOF' || fail "numa01 ids: $(cat "$work/ncheck")"
import json, re, sys
tasks = {t["pid"]: t for t in json.load(open(sys.argv[2]))["tasks"]}
tgid, moves, swaps = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r" (sched_(?:move|swap|stick)_numa): (.*)$", line)
    if not m:
        continue
    ev = m.group(1)
    f = {k: int(v) for k, v in (kv.split("=") for kv in m.group(2).split())}
    pre = "" if ev == "sched_move_numa" else "src_"
    sides = [pre] + (["dst_"] if ev == "sched_swap_numa" else [])
    for side in sides:
        pid, tg, ng = f[side + "pid"], f[side + "tgid"], f[side + "ngid"]
        if pid not in tasks:
            print("unknown pid", pid, line); sys.exit(1)
        # one tgid per thread, its process's; the group's gid is a task
        # of the same process (numa01's processes share no memory)
        if tgid.setdefault(pid, tg) != tg or not 0 < tg <= pid:
            print("tgid", tg, "of", pid, line); sys.exit(1)
        if ng and (ng not in tasks or tgid.get(ng, tg) != tg):
            print("ngid", ng, "of", pid, line); sys.exit(1)
        if ev == "sched_swap_numa":
            swaps[pid] = swaps.get(pid, 0) + 1
    if ev == "sched_move_numa":
        moves[f["pid"]] = moves.get(f["pid"], 0) + 1
    if f["dst_cpu"] >= 0 and f["src_nid"] == f["dst_nid"]:
        print("within a node", line); sys.exit(1)
bad = [p for p, t in tasks.items() if t["numa_moves"] != moves.get(p, 0) or t["numa_swaps"] != swaps.get(p, 0)]
if bad or len(set(tgid.values())) != 2:
    print("per-task moves or swaps differ for", bad, "or tgids", set(tgid.values())); sys.exit(1)
PYEOF
fi
if have trace-cmd; then
    trace-cmd report "$work/n.dat" >"$work/nreport" 2>"$work/nreport.err" ||
        fail "trace-cmd report (numa01) failed: $(head -3 "$work/nreport.err")"
    [ -s "$work/nreport.err" ] && fail "trace-cmd report (numa01) complained: $(head -3 "$work/nreport.err")"
    grep -q 'FAILED TO PARSE' "$work/nreport" && fail "trace-cmd could not parse: $(grep -m1 'FAILED TO PARSE' "$work/nreport")"
    norm <"$work/n.txt" >"$work/n.norm"
    norm <"$work/nreport" >"$work/nr.norm"
    cmp -s "$work/n.norm" "$work/nr.norm" ||
        { diff "$work/n.norm" "$work/nr.norm" | head -5 >&2; fail "trace-cmd report and the .txt differ (numa01)"; }
    # the kernel's own layout (include/trace/events/sched.h, as tracefs
    # prints the format): 4-byte pid_t and int fields after the common ones
    trace-cmd dump --events "$work/n.dat" >"$work/nformats" 2>&1 || fail "trace-cmd dump --events failed"
    has_fields() { # EVENT FIELD...: the fields in order from offset 8
        local ev=$1 off=8; shift
        for f in "$@"; do
            sed -n "/^name: $ev\$/,/^print fmt/p" "$work/nformats" |
                grep -qF "field:$f;	offset:$off;	size:4;	signed:1;" || fail "$ev's format has no '$f' at offset $off"
            off=$((off + 4))
        done
    }
    has_fields sched_move_numa "pid_t pid" "pid_t tgid" "pid_t ngid" "int src_cpu" "int src_nid" "int dst_cpu" "int dst_nid"
    for ev in sched_swap_numa sched_stick_numa; do
        has_fields $ev "pid_t src_pid" "pid_t src_tgid" "pid_t src_ngid" "int src_cpu" "int src_nid" \
            "pid_t dst_pid" "pid_t dst_tgid" "pid_t dst_ngid" "int dst_cpu" "int dst_nid"
    done
    # trace-cmd's filters read the fields
    [ "$(trace-cmd report -F 'sched_stick_numa: dst_cpu == -1' "$work/n.dat" 2>/dev/null | grep -c ' sched_stick_numa: ')" = \
      "$(ncount 'numa_migrate_result: outcome=no_cpu ')" ] || fail "trace-cmd -F 'dst_cpu == -1' disagrees with the .txt"
fi
# 'kernel' takes the three tracepoints, not numasim's numa_migrate_result
numa01_small --trace "$work/nk" --trace-events kernel >/dev/null 2>&1 || fail "numa01 --trace-events kernel failed"
grep -q ' numa_migrate_result: ' "$work/nk.txt" && fail "--trace-events kernel let numa_migrate_result through"
[ "$(grep -c -E ' sched_(move|swap|stick)_numa: ' "$work/nk.txt")" = $((moves + swaps + sticks)) ] ||
    fail "--trace-events kernel: a different count of sched NUMA tracepoints"

# ---- a window and an event filter -------------------------------------------
"$NUMASIM" run small --quiet --duration 1.05 --trace "$work/w.txt" --trace-window 1.01:1.02 \
    --trace-events kernel >/dev/null 2>"$work/err" || fail "windowed run failed: $(cat "$work/err")"
[ -s "$work/w.json" ] && [ -s "$work/w.txt" ] || fail "windowed FILE.json / FILE.txt missing"
awk '/^#/ || /^cpus=/ { next } { t = $3 + 0; if (t < 1.01 || t >= 1.02) { print; bad = 1 } n++ }
     END { exit bad || !n }' "$work/w.txt" || fail "events outside the window 1.01-1.02 s (or none)"
grep -q -e '_begin:' "$work/w.txt" && fail "--trace-events kernel let a simulator span through"
grep -v -e '^#' -e '^cpus=' "$work/w.txt" | grep -E -q -v "$re" && fail "windowed text lines do not match the regex"
[ -n "$py" ] && { $py -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/w.json" || fail "windowed JSON does not parse"; }

# ---- FILE.json.gz: the same JSON, the same bytes every time, above 16 MiB ------
[ ! -e "$work/w.json.gz" ] || fail "auto gzip'd a small trace"
win=(--quiet --duration 1.05 --trace-window 1.01:1.02 --trace-events kernel)
"$NUMASIM" run small "${win[@]}" --trace "$work/g" --trace-gzip yes >/dev/null 2>"$work/err" ||
    fail "--trace-gzip yes failed: $(cat "$work/err")"
[ -s "$work/g.json.gz" ] && [ ! -e "$work/g.json" ] || fail "--trace-gzip yes: not FILE.json.gz alone: $(ls "$work")"
gzip -t "$work/g.json.gz" || fail "FILE.json.gz is not gzip"
gzip -dc "$work/g.json.gz" | cmp - "$work/w.json" || fail "FILE.json.gz holds other JSON than FILE.json"
cmp <(gzip -dc "$work/g.json.gz" | jq -S .) <(jq -S . "$work/w.json") || fail "jq reads other JSON from FILE.json.gz"
grep -Eq 'g\.json\.gz [0-9.]+ [KM]iB \([0-9.]+ [KM]iB of JSON\)' "$work/err" ||
    fail "the summary does not give both sizes: $(cat "$work/err")"
# deterministic: no name and an mtime of 0 in the header (bytes 3-7: flags, mtime)
"$NUMASIM" run small "${win[@]}" --trace "$work/g2.json.gz" >/dev/null 2>&1 || fail "--trace FILE.json.gz failed"
[ ! -e "$work/g2.json" ] || fail "--trace FILE.json.gz wrote FILE.json"
cmp "$work/g.json.gz" "$work/g2.json.gz" || fail "two runs give other .json.gz bytes"
[ "$(od -An -tx1 -j3 -N5 "$work/g.json.gz" | tr -d ' ')" = 0000000000 ] ||
    fail "the gzip header has a name or an mtime: $(od -An -tx1 -N10 "$work/g.json.gz")"
# auto: a trace whose JSON passes 16 MiB is gzip'd; --trace-gzip no keeps it
# plain; each removes the other form an earlier run left
echo stale >"$work/large.json"
"$NUMASIM" run small --quiet --duration 1.2 --trace "$work/large" >/dev/null 2>"$work/err" ||
    fail "a large trace failed: $(cat "$work/err")"
[ -s "$work/large.json.gz" ] && [ ! -e "$work/large.json" ] || fail "auto did not gzip a large trace alone: $(ls "$work")"
jb=$(gzip -dc "$work/large.json.gz" | wc -c)
[ "$jb" -gt $((16 << 20)) ] || fail "the large trace's JSON is $jb bytes, not over 16 MiB"
"$NUMASIM" run small "${win[@]}" --trace "$work/large" --trace-gzip no >/dev/null 2>&1 || fail "--trace-gzip no failed"
[ -s "$work/large.json" ] && [ ! -e "$work/large.json.gz" ] || fail "--trace-gzip no left the older .json.gz: $(ls "$work")"
ls -a "$work" | grep -q '^\.g\|^\.large' && fail "temporaries left: $(ls -a "$work")"

# ---- bad input: exit 2, nothing written --------------------------------------
bad_case() {
    local what=$1; shift
    local rc=0
    rm -f "$work"/bad*
    "$NUMASIM" run small --quiet --duration 1.05 "$@" >/dev/null 2>"$work/err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit status $rc, expected 2"
    [ -s "$work/err" ] || fail "$what: no message"
    ! ls "$work"/bad* >/dev/null 2>&1 || fail "$what: left files: $(ls "$work"/bad*)"
}
bad_case "window 1:0.5" --trace "$work/bad" --trace-window 1:0.5
grep -q 'END must be after START' "$work/err" || fail "window 1:0.5: unclear message: $(cat "$work/err")"
bad_case "window past the end" --trace "$work/bad" --trace-window 2:3
bad_case "window not a number" --trace "$work/bad" --trace-window a:b
bad_case "unknown event" --trace "$work/bad" --trace-events tlb_flush,nosuch
grep -q "nosuch" "$work/err" || fail "unknown event: message does not name it: $(cat "$work/err")"
bad_case "--trace-max-mb 0" --trace "$work/bad" --trace-max-mb 0
bad_case "--trace-gzip maybe" --trace "$work/bad" --trace-gzip maybe
grep -q "^numasim run: --trace-gzip: 'maybe' is not yes, no or auto$" "$work/err" || fail "--trace-gzip maybe: $(cat "$work/err")"
bad_case "--trace-gzip without --trace" --trace-gzip yes
bad_case "window without --trace" --trace-window 1:2
bad_case "unwritable directory" --trace "$work/nonexistent/bad"
bad_case "--json over the trace.dat" --trace "$work/bad" --json "$work/bad.dat"
grep -q 'name the same file' "$work/err" || fail "--json over FILE.dat: unclear message: $(cat "$work/err")"
# over the size limit: the run stops as soon as the trace passes the limit,
# exits 2 and writes nothing (no report, no --json, no trace); the message
# says how far the run got and which options would make the trace fit
rc=0
"$NUMASIM" run small --quiet --duration 20 --trace "$work/big" --trace-max-mb 1 --json "$work/big-report.json" \
    >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || fail "over --trace-max-mb: exit status $rc, expected 2"
grep -q -- '--trace-window [0-9.]*:[0-9.]*' "$work/err" || fail "over the limit: message does not suggest a --trace-window: $(cat "$work/err")"
grep -q -- '--trace-events [a-z_,]*' "$work/err" || fail "over the limit: message does not suggest --trace-events: $(cat "$work/err")"
at=$(sed -n 's/.*at \([0-9.]*\) simulated seconds.*the run was stopped there.*/\1/p' "$work/err")
[[ -n $at ]] || fail "over the limit: the run was not stopped early: $(cat "$work/err")"
awk -v at="$at" 'BEGIN { exit !(at < 20) }' || fail "over the limit: stopped at $at s of 20"
! ls "$work"/big* >/dev/null 2>&1 || fail "over the limit: files written: $(ls "$work"/big*)"
! ls -a "$work" | grep -q '^\.big' || fail "over the limit: temporaries left: $(ls -a "$work")"
[[ ! -s $work/out ]] || fail "over the limit: a report was printed: $(head -3 "$work/out")"
# the limit is on the uncompressed JSON and text, gzip'd or not
rc=0
"$NUMASIM" run small --quiet --duration 20 --trace "$work/big" --trace-max-mb 1 --trace-gzip yes >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q 'over --trace-max-mb' "$work/err" || fail "gzip'd over --trace-max-mb: exit $rc: $(cat "$work/err")"
! ls "$work"/big* >/dev/null 2>&1 || fail "gzip'd over the limit: files written: $(ls "$work"/big*)"
# ---- hostile cases of issue 28 ----------------------------------------------
# A trace with no event in it (events that never happen): written whole,
# no NULL reaches memcpy (UBSan aborted in the .dat writer).
"$NUMASIM" run small --quiet --duration 1 --trace "$work/none" --trace-events sched_skip_vma_numa \
    >/dev/null 2>"$work/err" || fail "a trace of no events failed: $(cat "$work/err")"
grep -q '^trace: 0 events' "$work/err" || fail "a trace of no events: $(cat "$work/err")"
[ -s "$work/none.json" ] && [ -s "$work/none.txt" ] && [ -s "$work/none.dat" ] || fail "a trace of no events: files missing"
"$NUMASIM" run small --quiet --duration 2 --trace "$work/quiet" --trace-window 0.5:0.6 \
    --trace-events mm_migrate_pages >/dev/null 2>"$work/err" || fail "an empty window failed: $(cat "$work/err")"

# The summary names the files escaped: an escape sequence in the path
# does not reach the terminal.
esc="$work/"$'e\e]2;x\a'
"$NUMASIM" run small --quiet --duration 1 --trace "$esc" >/dev/null 2>"$work/err" || fail "a trace with ESC in its name failed"
grep -q $'\e' "$work/err" && fail "the trace summary printed a raw ESC: $(cat -v "$work/err")"
grep -qF 'e\x1b]2;x\x07.json' "$work/err" || fail "the trace summary does not show the path escaped: $(cat -v "$work/err")"
rm -f "$esc".*

# A full disk: the file and the reason, exit 1, nothing left (not even a
# temporary).  A 64 KiB tmpfs in a mount namespace of our own, where root
# may make one; the report to a full stdout (/dev/full) everywhere.
rc=0
"$NUMASIM" run small --quiet --duration 1 >/dev/full 2>"$work/err" || rc=$?
[ "$rc" = 1 ] || fail "report to /dev/full: exit status $rc, expected 1"
grep -q 'cannot write the report to stdout: No space left on device' "$work/err" ||
    fail "report to /dev/full: $(cat "$work/err")"
small_fs() {
    mkdir -p "$work/full"
    unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" && shift && "$@"' sh "$work/full" "$@"
}
if [ "$(id -u)" = 0 ] && small_fs true 2>/dev/null; then
    # full COMMAND...: COMMAND with the tmpfs at $work/full all but full (a
    # 60 KiB filler: 4 KiB left, less than any output here); the directory's
    # listing afterwards in $work/full.ls
    full() {
        small_fs sh -c 'head -c 61440 /dev/zero >"$0/fill"; "$@"; rc=$?; rm "$0/fill"; ls -A "$0" >"$0.ls"; exit $rc' \
            "$work/full" "$@"
    }
    for out in "--trace $work/full/t" "--json $work/full/r.json" "--json $work/full/r.json --trace $work/full/t"; do
        rc=0
        # shellcheck disable=SC2086
        full "$NUMASIM" run small --quiet --duration 1 $out >/dev/null 2>"$work/err" || rc=$?
        [ "$rc" = 1 ] || fail "full disk ($out): exit status $rc, expected 1: $(cat "$work/err")"
        grep -Eq "^numasim: --(trace|json): cannot write $work/full/[a-z.]+: No space left on device$" "$work/err" ||
            fail "full disk ($out): no file and reason: $(cat "$work/err")"
        [ ! -s "$work/full.ls" ] || fail "full disk ($out): left behind: $(cat "$work/full.ls")"
    done
    rc=0
    full "$NUMASIM" ab small --kernels v7.3 --pairs 1 --duration 0.5 --quiet --json "$work/full/x.json" \
        >/dev/null 2>"$work/err" || rc=$?
    [ "$rc" = 1 ] && grep -q "^numasim ab: --json: cannot write $work/full/x.json: No space left on device$" "$work/err" ||
        fail "full disk (ab --json): exit status $rc: $(cat "$work/err")"
    [ ! -s "$work/full.ls" ] || fail "full disk (ab --json): left behind: $(cat "$work/full.ls")"
else
    echo "trace: skipped the full-disk test (needs root and unshare -m to mount a small tmpfs)"
fi

echo ok
