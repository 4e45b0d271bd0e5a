#!/usr/bin/env bash
# End-to-end: the TLB oracle (docs/oracle.md) and 'numasim verify'.
#  - v7.3+no-pending-check (pte_accessible without the tlb_flush_pending
#    clause of 20841405940e) is caught on small within a few seeds, on x86
#    and arm64, and the interleaving names change_pte_range, the hint fault,
#    the unmap that recorded no flush and the copy's check;
#  - every base, both single-folio patches and flush-side verify safe on
#    small, small-arm64 and small-invlpgb, and v7.3 and the patches with
#    THPs, 64 KiB mTHPs, split partially mapped THPs and compaction;
#  - v7.3+pending-flag (tlb_flush_pending a flag, before 16af97dc5a89) is
#    caught once a second gather runs (workload.madvise_cold_every_ms), and
#    the interleaving shows the second gather clearing the scanner's raise;
#  - with madvise(MADV_DONTNEED) zaps (workload.madvise_dontneed_every_ms),
#    every base, both single-folio patches and flush-side pass the check at
#    the zap's return, also with a migration call's batches outstanding;
#  - arm64 batched TLBIs complete only at their issuer's DSB: v6.12, whose
#    flush_tlb_batched_pending is a DSB on the caller (before 4b634918384c),
#    is caught returning from a zap with another CPU's batch incomplete;
#    with the arm64-pending-flush backport it is safe;
#  - flush-side and flush-side-naive are caught on small-arm64 with a
#    migration call, compaction and 2 MiB zaps, with the interleaving (the
#    outstanding batch, another task's mark, the skipped pending flush, the
#    check); v7.3 is safe on the same runs;
#  - verify is deterministic per seed; run --oracle leaves the report alone.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/oracle.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

verify() { # expected-status output args...
    local want=$1 out=$2; shift 2
    local rc=0
    "$NUMASIM" verify "$@" >"$out" 2>"$out.err" || rc=$?
    [ "$rc" -eq "$want" ] || fail "verify $*: exit $rc, expected $want: $(cat "$out.err"; tail -3 "$out")"
}

# ---- a broken kernel is caught, with its interleaving ----------------------------
for sc in small small-arm64; do
    out=$work/npc-$sc.txt
    verify 3 "$out" "$sc" --kernel v7.3+no-pending-check --seeds 5 --first
    grep -q '^UNSAFE: ' "$out" || fail "$sc: no UNSAFE verdict"
    grep -q '^stale translation before the copy: ' "$out" || fail "$sc: no report"
    grep -q 'PTE made inaccessible by change_pte_range' "$out" || fail "$sc: no change_pte_range"
    grep -q 'change_pte_range: 0x.* -> PROT_NONE (tlb_flush_pending 1)' "$out" ||
        fail "$sc: the interleaving lacks the scanner's change"
    grep -q 'hint fault (do_numa_page)' "$out" || fail "$sc: the interleaving lacks the hint fault"
    grep -q 'try_to_migrate_one (the unmap).*pte_accessible() false' "$out" ||
        fail "$sc: the interleaving lacks the unmap that recorded no flush"
    grep -q 'CHECK before the copy' "$out" || fail "$sc: the interleaving lacks the check"
    grep -q 'CPUs that may still translate it: cpu' "$out" || fail "$sc: no CPUs named"
    # the change happened before the fault, which came before the check
    awk '/change_pte_range: 0x/ { c = NR } /hint fault/ && c { f = NR } /CHECK/ && f { ok = 1 }
         END { exit !ok }' "$out" || fail "$sc: interleaving out of order"
done

# ---- pending-flag: a second gather (madvise(MADV_COLD) every 2 ms) clears the
# scanner's raise of tlb_flush_pending; without the second gather nothing shows
MADV=(--set workload.madvise_cold_every_ms=2)
out=$work/pf.txt
verify 3 "$out" small --kernel v7.3+pending-flag --seeds 5 --first "${MADV[@]}"
grep -q 'task_numa_work: tlb_gather_mmu' "$out" || fail "pending-flag: no scanner gather shown"
grep -q 'madvise_cold: tlb_gather_mmu' "$out" || fail "pending-flag: no second gather shown"
grep -q 'madvise_cold: tlb_finish_mmu: tlb_flush_pending dropped (tlb_flush_pending 0)' "$out" ||
    fail "pending-flag: the second gather's close does not show the count lost"
grep -q 'change_pte_range: 0x.* -> PROT_NONE (tlb_flush_pending 0)' "$out" ||
    fail "pending-flag: the change does not show the lost count"
verify 0 "$work/pf0.txt" small --kernel v7.3+pending-flag --seeds 1 --duration 1.5
for k in v6.4 v7.3 v7.3+single-folio-v2 v7.3+flush-side; do
    verify 0 "$work/madv-$k.txt" small --kernel "$k" --seeds 1 --duration 1.5 "${MADV[@]}"
done
verify 0 "$work/madv-arm64.txt" small-arm64 --kernel v7.3 --seeds 1 --duration 1.5 "${MADV[@]}"

# ---- deterministic per seed ------------------------------------------------------
verify 3 "$work/d1.txt" small --kernel v7.3+no-pending-check --seeds 2 --seed 4
verify 3 "$work/d2.txt" small --kernel v7.3+no-pending-check --seeds 2 --seed 4
cmp -s "$work/d1.txt" "$work/d2.txt" || fail "verify is not deterministic"
verify 3 "$work/d3.txt" small --kernel v7.3+no-pending-check --seeds 1 --seed 5
grep -q '^  seed 5: ' "$work/d3.txt" || fail "--seed does not pick the first seed"
cmp -s <(grep '^  seed 5' "$work/d1.txt") <(grep '^  seed 5' "$work/d3.txt") ||
    fail "seed 5 differs when run alone"

# ---- every shipped kernel is safe ------------------------------------------------
for sc in small small-arm64 small-invlpgb; do
    for k in v5.12 v5.15 v6.1 v6.3 v6.4 v6.8 v6.12 v7.3 v7.3+single-folio-v1 v7.3+single-folio-v2 \
             v7.3+flush-side; do
        out=$work/safe-$sc-$k.txt
        verify 0 "$out" "$sc" --kernel "$k" --seeds 1 --duration 1.5
        grep -qE '^safe: [1-9][0-9]* migrations, [1-9][0-9]* checks, 0 stale translations$' "$out" ||
            fail "$sc $k: $(tail -1 "$out")"
    done
done
THP=(--set transparent_hugepage.enabled=always)
MTHP=(--set transparent_hugepage.hugepages-64kB.enabled=always)
SPLIT=("${THP[@]}" --set workload.thp_partial=0.25)
COMPACT=(--set run.compact_memory_every_s=0.5)
for k in v7.3 v7.3+single-folio-v1 v7.3+single-folio-v2; do
    verify 0 "$work/thp-$k.txt" small --kernel "$k" --seeds 1 --duration 2 "${THP[@]}"
    verify 0 "$work/mthp-$k.txt" small --kernel "$k" --seeds 1 --duration 2 "${MTHP[@]}"
    verify 0 "$work/split-$k.txt" small --kernel "$k" --seeds 1 --duration 2 "${SPLIT[@]}"
    verify 0 "$work/compact-$k.txt" small --kernel "$k" --seeds 1 --duration 2 "${COMPACT[@]}"
    for f in thp mthp split compact; do
        grep -qE '^safe: [1-9][0-9]* migrations' "$work/$f-$k.txt" || fail "$f $k: nothing migrated"
    done
done
# the broken kernel is caught with mTHPs and under compaction too
verify 3 "$work/npc-mthp.txt" small --kernel v7.3+no-pending-check --seeds 2 --first "${MTHP[@]}"
verify 3 "$work/npc-compact.txt" small --kernel v7.3+no-pending-check --seeds 2 --first "${COMPACT[@]}"

# ---- the zap's return (madvise(MADV_DONTNEED), workload.madvise_dontneed_*): every
# shipped kernel and patch is safe with it, the zaps are checked, and a zap
# that meets an unmap batch leaves no stale translation behind on them
ZAP=(--set workload.madvise_dontneed_every_ms=0.2 --set workload.madvise_dontneed_kib=16)
for sc in small small-arm64; do
    for k in v5.12 v6.4 v6.12 v7.3 v7.3+single-folio-v1 v7.3+single-folio-v2 v7.3+flush-side; do
        out=$work/zap-$sc-$k.txt
        verify 0 "$out" "$sc" --kernel "$k" --seeds 1 --duration 1.2 "${ZAP[@]}"
        grep -qE '^safe: [1-9][0-9]* migrations, [1-9][0-9]* checks \([1-9][0-9]* zap returns\), 0 stale translations$' \
            "$out" || fail "zap $sc $k: $(tail -1 "$out")"
    done
done
# with a migration call's 512-page batches outstanding while the zaps run
MCALL=(--set workload.migrate_call=migrate_pages --set workload.migrate_at_s=1.0
       --set workload.migrate_every_s=0.05 --set workload.migrate_back_and_forth=true
       --set workload.migrate_from=0 --set workload.migrate_to=1)
for k in v7.3 v7.3+flush-side; do
    verify 0 "$work/zapcall-$k.txt" small-arm64 --kernel "$k" --seeds 1 --duration 1.3 "${ZAP[@]}" "${MCALL[@]}"
done
# arm64 before 4b634918384c (v6.5 .. v6.15): flush_tlb_batched_pending was a
# DSB on the caller's CPU, which does not complete the batched TLBIs another
# CPU issued; the zap returns while every CPU may still translate the page.
# The backported fix (arm64-pending-flush) closes it.
out=$work/dsb-only.txt
verify 3 "$out" small-arm64 --kernel v6.12 --seeds 3 --duration 1.3 --first "${ZAP[@]}" "${MCALL[@]}"
grep -q '^stale translation after the zap returned: ' "$out" || fail "dsb-only: no zap report"
grep -q 'TLBI VALE1IS issued (batched: complete at the issuer.s DSB)' "$out" ||
    fail "dsb-only: the interleaving lacks the issued TLBI"
grep -q 'flush_tlb_batched_pending: arch_flush_tlb_batched_pending, a DSB only' "$out" ||
    fail "dsb-only: the interleaving lacks the DSB-only pending flush"
grep -q 'CHECK after the zap returned' "$out" || fail "dsb-only: no check line"
verify 0 "$work/dsb-fixed.txt" small-arm64 --kernel v6.12+arm64-pending-flush --seeds 2 --duration 1.3 \
    "${ZAP[@]}" "${MCALL[@]}"
# flush-side and flush-side-naive on arm64: compaction (the compact_memory
# writer) and a migration call unmap the same mm in batches; a later
# batch's try_to_unmap_flush -- its DSB completes only its own TLBIs --
# marks the mm's batches flushed while the call's batch is outstanding, and
# a 2 MiB zap of the call's pages skips flush_tlb_batched_pending
RACE=(--set workload.madvise_dontneed_every_ms=1 --set workload.madvise_dontneed_kib=2048
      --set run.compact_memory_every_s=0.1 "${MCALL[@]}")
for k in v7.3+flush-side v7.3+flush-side-naive; do
    out=$work/race-$k.txt
    verify 3 "$out" small-arm64 --kernel "$k" --seeds 5 --first "${RACE[@]}"
    grep -q '^stale translation after the zap returned: ' "$out" || fail "$k: no zap report"
    grep -q 'pid 900 *try_to_migrate_one: set_tlb_ubc_flush_pending recorded a batch' "$out" ||
        fail "$k: the interleaving lacks the outstanding batch's record"
    grep -q 'pid 90 *try_to_unmap_flush: marked the mm.s unmap batches flushed' "$out" ||
        fail "$k: the interleaving lacks the other task's mark"
    grep -q 'flush_tlb_batched_pending: pending == flushed, no flush' "$out" ||
        fail "$k: the interleaving lacks the skipped flush"
    grep -q "pid 900's unmap batch not yet flushed" "$out" || fail "$k: the batch is not shown pending"
    awk '/recorded a batch at/ && /pid 900/ { r = NR } /marked the mm/ && r { m = NR }
         /pending == flushed/ && m { z = NR } /CHECK after the zap returned/ && z { ok = 1 }
         END { exit !ok }' "$out" || fail "$k: interleaving out of order"
done
# flush-side-naive's own mistake, a mark that covers another task's later
# batch: seeds 1, 3 and 5 of 1-8 catch it (the costs' jitter decides which)
verify 3 "$work/race-naive-2.txt" small-arm64 --kernel v7.3+flush-side-naive --seed 1 --seeds 1 \
    --first "${RACE[@]}"
grep -q 'a later batch of another task was not flushed' "$work/race-naive-2.txt" ||
    fail "flush-side-naive: the mark does not show the other task's later batch"
# v7.3 on the seeds where both variants are first caught
verify 0 "$work/race-v7.3.txt" small-arm64 --kernel v7.3 --seeds 2 "${RACE[@]}"
# off by default: no zap is checked
verify 0 "$work/nozap.txt" small --kernel v7.3 --seeds 1 --duration 1.2
grep -q 'zap returns' "$work/nozap.txt" && fail "zaps checked with madvise_dontneed_every_ms=0"

# ---- run --oracle ------------------------------------------------------------------
"$NUMASIM" run small --quiet --duration 2 >"$work/plain.txt"
"$NUMASIM" run small --quiet --duration 2 --oracle >"$work/oracle.txt" 2>"$work/oracle.err"
cmp -s "$work/plain.txt" "$work/oracle.txt" || fail "run --oracle changed the report"
grep -qE '^oracle: safe: [1-9][0-9]* migrations' "$work/oracle.err" ||
    fail "run --oracle: $(cat "$work/oracle.err")"
"$NUMASIM" run small --quiet --duration 1.5 --oracle "${ZAP[@]}" >/dev/null 2>"$work/oracle-zap.err"
grep -qE '^oracle: safe: [1-9][0-9]* migrations, [1-9][0-9]* checks \([1-9][0-9]* zap returns\), 0 stale' \
    "$work/oracle-zap.err" || fail "run --oracle with zaps: $(cat "$work/oracle-zap.err")"

# no check, no verdict: shorter than the 1 s scan delay nothing migrates, and
# even a kernel verify catches at once is "inconclusive" (exit 4), not safe
for k in v7.3 v7.3+no-pending-check; do
    verify 4 "$work/short-$k.txt" small --kernel "$k" --seeds 2 --duration 0.5
    grep -q '^inconclusive: 0 migrations, 0 checks: nothing was checked' "$work/short-$k.txt" ||
        fail "verify --duration 0.5 --kernel $k: $(tail -1 "$work/short-$k.txt")"
done
"$NUMASIM" run small --quiet --duration 0.5 --oracle >/dev/null 2>"$work/oracle-short.err"
grep -q '^oracle: inconclusive: 0 migrations, 0 checks' "$work/oracle-short.err" ||
    fail "run --oracle --duration 0.5: $(cat "$work/oracle-short.err")"

# ---- bad input -----------------------------------------------------------------------
# --set run.seed / run.duration_s would be overridden by --seed / --duration
for bad in "--seeds 0" "--seeds x" "--seed -1" "--kernel v9.9" "--bogus" "--set run.seed=5" \
           "--set run.duration_s=3" "--set run.seed =5"; do
    rc=0
    # shellcheck disable=SC2086
    "$NUMASIM" verify small $bad >/dev/null 2>"$work/bad.err" || rc=$?
    [ "$rc" -eq 2 ] || fail "verify small $bad: exit $rc, expected 2"
done
"$NUMASIM" verify --help | grep -q 'usage: numasim verify' || fail "verify --help"
"$NUMASIM" --help | grep -q '  verify SCENARIO' || fail "verify missing from numasim --help"
# --exact: every hint fault one by one, said in the header; a run too short
# to check anything is inconclusive (exit 4), never "safe"
verify 0 "$work/exact.txt" small --kernel v7.3 --seeds 1 --duration 1.5 --exact
grep -q 'every hint fault exact$' "$work/exact.txt" || fail "--exact: $(head -1 "$work/exact.txt")"
grep -qE '^safe: [1-9][0-9]* migrations, [1-9][0-9]* checks' "$work/exact.txt" || fail "--exact: $(tail -1 "$work/exact.txt")"
verify 4 "$work/short.txt" small --kernel v7.3+no-pending-check --seeds 2 --duration 0.5
grep -q '^inconclusive: 0 migrations, 0 checks' "$work/short.txt" || fail "a run with no check: $(tail -1 "$work/short.txt")"
rm -rf "$work"
echo "oracle: ok"
