#!/usr/bin/env bash
# End-to-end: large folios on the small machine (16 CPUs, 1 GiB, 20 s).
#  - 2 MiB THP: every migration moves 512 pages, and TLB interrupts per
#    migrated page fall accordingly against 4 KiB pages;
#  - 64 KiB mTHP: v7.3 (with the mTHP NUMA series of v6.10) hints and
#    migrates the folios, v6.8 (mTHP, not its NUMA balancing) does not,
#    and v6.8+mthp-numa does;
#  - partially mapped THPs split in migration: single-folio-v1 flushes far
#    more per migrated page than v2 and the base;
#  - compaction forced every 2 s migrates pages (within nodes: the rest of
#    the migrations are NUMA's) and keeps every invariant (NUMASIM_CHECK).
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/largefolio.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

value() { grep -m1 "\"$1\":" "$2" | sed -E 's/.*: *([-0-9.e+]+),?$/\1/'; }
run() { # name kernel [extra args]
    local name=$1 kernel=$2; shift 2
    NUMASIM_CHECK=1 "$NUMASIM" run small --quiet --kernel "$kernel" "$@" \
        --json "$work/$name.json" >/dev/null 2>"$work/$name.err" ||
        fail "$name: numasim run failed: $(cat "$work/$name.err")"
}
per_page() { awk -v t="$(value tlb_shootdowns "$1")" -v m="$(value numa_pages_migrated "$1")" \
                 'BEGIN { if (m == 0) print 0; else printf "%.4f", t / m }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

THP=(--set transparent_hugepage.enabled=always)
MTHP=(--set transparent_hugepage.hugepages-64kB.enabled=always)
SPLIT=("${THP[@]}" --set workload.thp_partial=0.25)

# ---- the built-in variations run by name (2 s of the full seed machine) -----------
out=$("$NUMASIM" scenarios)
for sc in seed-mthp64k seed-thp seed-thp-split seed-compact; do
    grep -qE "^ *$sc " <<<"$out" || fail "'numasim scenarios' does not list $sc"
    "$NUMASIM" run "$sc" --quiet --duration 2 --json "$work/$sc.json" >/dev/null 2>"$work/$sc.err" ||
        fail "$sc: $(cat "$work/$sc.err")"
done
[ "$(value thp_fault_alloc "$work/seed-thp.json")" -gt 60000 ] || fail "seed-thp: not built of THPs"
[ "$(value thp_deferred_split_page "$work/seed-thp-split.json")" -gt 60000 ] ||
    fail "seed-thp-split: THPs not partially mapped"
grep -q '"hugepages-64kB/anon_fault_alloc"' "$work/seed-mthp64k.json" || fail "seed-mthp64k: no 64 kB mTHP"

# ---- 2 MiB THP ----------------------------------------------------------------
run base4k v7.3
run thp v7.3 "${THP[@]}"
n=$(value thp_migration_success "$work/thp.json"); m=$(value numa_pages_migrated "$work/thp.json")
gt "$n" 0 || fail "THP: no THP migrated"
[ "$m" = $((n * 512)) ] || fail "THP: $m pages migrated in $n THP migrations (not 512 each)"
[ "$(value numa_huge_pte_updates "$work/thp.json")" -gt 0 ] || fail "THP: no huge PMD hinted"
pp4=$(per_page "$work/base4k.json"); ppt=$(per_page "$work/thp.json")
echo "THP: $n migrations of 512 pages; TLB interrupts per migrated page: 4 KiB $pp4, 2 MiB $ppt"
gt "$pp4" "$(awk -v t="$ppt" 'BEGIN { print t * 10 }')" ||
    fail "THP: TLB interrupts per migrated page ($ppt) did not fall well below 4 KiB's ($pp4)"

# ---- 64 KiB mTHP: with and without the mTHP NUMA series ------------------------------
run m73 v7.3 "${MTHP[@]}"
run m68 v6.8 "${MTHP[@]}"
run m68p v6.8+mthp-numa "${MTHP[@]}"
for n in m73 m68p; do
    gt "$(value numa_pages_migrated "$work/$n.json")" 0 || fail "$n: mTHP folios not migrated"
    # one hint fault per folio fault, not per PTE
    awk -v f="$(value numa_hint_faults "$work/$n.json")" -v u="$(value numa_pte_updates "$work/$n.json")" \
        'BEGIN { exit !(f > 0 && f * 4 < u) }' || fail "$n: hint faults not accounted per folio"
done
for k in numa_pte_updates numa_hint_faults numa_pages_migrated; do
    [ "$(value $k "$work/m68.json")" = 0 ] || fail "v6.8 without mthp-numa: $k is not 0"
done
grep -q '"hugepages-64kB/anon_fault_alloc": 16384' "$work/m73.json" || fail "per-size stat anon_fault_alloc"
echo "mTHP 64K: v7.3 migrated $(value numa_pages_migrated "$work/m73.json") pages, v6.8 none," \
     "v6.8+mthp-numa $(value numa_pages_migrated "$work/m68p.json")"

# ---- partially mapped THPs split in migration -------------------------------------
run sb v7.3 "${SPLIT[@]}"
run s1 v7.3+single-folio-v1 "${SPLIT[@]}"
run s2 v7.3+single-folio-v2 "${SPLIT[@]}"
for n in sb s1 s2; do
    gt "$(value thp_migration_split "$work/$n.json")" 0 || fail "$n: no THP split in migration"
done
ppb=$(per_page "$work/sb.json"); pp1=$(per_page "$work/s1.json"); pp2=$(per_page "$work/s2.json")
echo "split: TLB interrupts per migrated page: v7.3 $ppb, +single-folio-v1 $pp1, +single-folio-v2 $pp2"
gt "$pp1" "$(awk -v t="$ppb" 'BEGIN { print t * 5 }')" || fail "split: v1 ($pp1) not far above the base ($ppb)"
gt "$pp1" "$(awk -v t="$pp2" 'BEGIN { print t * 5 }')" || fail "split: v1 ($pp1) not far above v2 ($pp2)"
gt "$(value flush_rounds "$work/s1.json")" "$(( $(value flush_rounds "$work/sb.json") * 5 ))" ||
    fail "split: v1 did not make far more IPI rounds"

# ---- forced compaction ------------------------------------------------------------------
# First touch all on node 0, so the NUMA migrations leave holes there.
C=(--set workload.shared_first_touch=node0 --set workload.private_first_touch=node0)
run c0 v7.3 "${C[@]}"
run c1 v7.3 "${C[@]}" --set run.compact_memory_every_s=2
gt "$(value compact_isolated "$work/c1.json")" 0 || fail "compaction isolated nothing"
gt "$(value compact_migrate_scanned "$work/c1.json")" 0 || fail "compaction scanned nothing"
[ "$(value compact_isolated "$work/c0.json")" = 0 ] || fail "compaction ran without being asked"
within=$(( $(value pgmigrate_success "$work/c1.json") - $(value numa_pages_migrated "$work/c1.json") ))
gt "$within" 0 || fail "compaction migrated no page"
echo "compaction: $within pages migrated within their node, invariants kept"
# with large folios too (v7.3 compacts mTHPs; PMD THPs never)
run c2 v7.3 "${C[@]}" --set run.compact_memory_every_s=2 "${MTHP[@]}"
run c3 v7.3 "${C[@]}" --set run.compact_memory_every_s=2 "${THP[@]}"
echo "ok"
