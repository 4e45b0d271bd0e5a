#!/usr/bin/env bash
# The large-folio and compaction keys: every bad value exits with status 2,
# names FILE:LINE: KEY (or --set: KEY) and writes no --json; every good
# setting is deterministic (same seed, byte-identical JSON, also in ab with
# any --jobs).
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/lf_input.XXXXXX")
base="$work/small.ini"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$NUMASIM" show small >"$base" || fail "numasim show small failed"

# with_lines NAME LINE...: the base file with LINEs appended; prints the
# path.  The last appended line is the file's last line.
with_lines() {
    local f="$work/$1.ini"
    shift
    cp "$base" "$f"
    printf '%s\n' "$@" >>"$f"
    echo "$f"
}
lines() { wc -l <"$1" | tr -d ' '; }

expect_error() { # NAME EXPECTED ARGS...
    local name=$1 want=$2
    shift 2
    local json="$work/$name.json" err="$work/$name.err" rc=0
    "$NUMASIM" "$@" --json "$json" --duration 0.1 --quiet >/dev/null 2>"$err" || rc=$?
    [[ $rc -eq 2 ]] || fail "$name: exit status $rc, expected 2; stderr: $(cat "$err")"
    grep -qF -- "$want" "$err" || fail "$name: stderr lacks '$want'; stderr: $(cat "$err")"
    [[ ! -e $json && ! -e $json.tmp ]] || fail "$name: $json was written"
    echo "ok: $name: $(head -n1 "$err")"
}

# ---- bad values, in a file ---------------------------------------------------
f=$(with_lines enabled '[tunables]' 'transparent_hugepage.enabled = sometimes')
expect_error enabled "$f:$(lines "$f"): transparent_hugepage.enabled: 'sometimes' is not one of" run "$f"

f=$(with_lines defrag '[tunables]' 'transparent_hugepage.defrag = eager')
expect_error defrag "$f:$(lines "$f"): transparent_hugepage.defrag: 'eager' is not one of" run "$f"

f=$(with_lines size_value '[tunables]' 'transparent_hugepage.hugepages-64kB.enabled = yes')
expect_error size_value "$f:$(lines "$f"): transparent_hugepage.hugepages-64kB.enabled: 'yes'" run "$f"

# an impossible size: not a power-of-two number of pages
f=$(with_lines size_48k '[tunables]' 'transparent_hugepage.hugepages-48kB.enabled = always')
expect_error size_48k "$f:$(lines "$f"): transparent_hugepage.hugepages-48kB.enabled: 48 kB is not a power-of-two" run "$f"

# order 1 is never used for anonymous memory
f=$(with_lines size_8k '[tunables]' 'transparent_hugepage.hugepages-8kB.enabled = always')
expect_error size_8k "$f:$(lines "$f"): transparent_hugepage.hugepages-8kB.enabled: 8 kB (order 1)" run "$f"

# a size no page-table level maps for anonymous memory
f=$(with_lines size_4m '[tunables]' 'transparent_hugepage.hugepages-4096kB.enabled = always')
expect_error size_4m "$f:$(lines "$f"): transparent_hugepage.hugepages-4096kB.enabled: 4096 kB is larger than a PMD" run "$f"
f=$(with_lines size_1g '[tunables]' 'transparent_hugepage.hugepages-1048576kB.enabled = always')
expect_error size_1g "$f:$(lines "$f"): transparent_hugepage.hugepages-1048576kB.enabled: 1048576 kB is larger than a PMD" run "$f"

# fractions outside 0..1, and 1 itself (nothing left mapped)
f=$(with_lines partial_high '[tunables]' 'transparent_hugepage.enabled = always' '[workload]' 'thp_partial = 1.5')
expect_error partial_high "$f:$(lines "$f"): workload.thp_partial: 1.5 is out of range" run "$f"
f=$(with_lines partial_neg '[tunables]' 'transparent_hugepage.enabled = always' '[workload]' 'thp_partial = -0.25')
expect_error partial_neg "$f:$(lines "$f"): workload.thp_partial: -0.25 is out of range" run "$f"
f=$(with_lines partial_one '[tunables]' 'transparent_hugepage.enabled = always' '[workload]' 'thp_partial = 1')
expect_error partial_one "$f:$(lines "$f"): workload.thp_partial: 1 leaves nothing" run "$f"
# a partial mapping with no large folio at all
f=$(with_lines partial_nothp '[workload]' 'thp_partial = 0.25')
expect_error partial_nothp "$f:$(lines "$f"): workload.thp_partial: thp_partial is 0.25 but no transparent_hugepage size" run "$f"

f=$(with_lines pattern '[workload]' 'thp_partial_pattern = middle')
expect_error pattern "$f:$(lines "$f"): workload.thp_partial_pattern: 'middle' is not one of" run "$f"
f=$(with_lines op '[workload]' 'thp_partial_op = munmap')
expect_error op "$f:$(lines "$f"): workload.thp_partial_op: 'munmap' is not one of" run "$f"
f=$(with_lines madv '[workload]' 'madv_hugepage = some')
expect_error madv "$f:$(lines "$f"): workload.madv_hugepage: 'some' is not one of" run "$f"
f=$(with_lines compact '[run]' 'compact_memory_every_s = -30')
expect_error compact "$f:$(lines "$f"): run.compact_memory_every_s: -30 is out of range" run "$f"
f=$(with_lines tlbirange '[machine]' 'arm64_tlbi_range = maybe')
expect_error tlbirange "$f:$(lines "$f"): machine.arm64_tlbi_range: 'maybe' is not a boolean" run "$f"

# ---- the same through --set ---------------------------------------------------
expect_error set_48k "--set: transparent_hugepage.hugepages-48kB.enabled: 48 kB is not a power-of-two" \
    run small --set transparent_hugepage.hugepages-48kB.enabled=always
expect_error set_2m_ok_4m_not "--set: transparent_hugepage.hugepages-4096kB.enabled: 4096 kB is larger than a PMD" \
    run small --set transparent_hugepage.hugepages-4096kB.enabled=always
expect_error set_partial "--set: workload.thp_partial: 2 is out of range" \
    run small --set workload.thp_partial=2
expect_error set_compact "--set: run.compact_memory_every_s: 'soon' is not a decimal number" \
    run small --set run.compact_memory_every_s=soon

# ---- determinism of every new setting ---------------------------------------------
settings=(
    "--set transparent_hugepage.enabled=always"
    "--set transparent_hugepage.hugepages-64kB.enabled=always --set transparent_hugepage.hugepages-16kB.enabled=always"
    "--set transparent_hugepage.enabled=madvise --set workload.madv_hugepage=shared --set transparent_hugepage.defrag=defer"
    "--set transparent_hugepage.enabled=always --set workload.thp_partial=0.25 --set workload.thp_partial_pattern=stride"
    "--set transparent_hugepage.enabled=always --set workload.thp_partial=0.5 --set workload.thp_partial_op=mprotect"
    "--set run.compact_memory_every_s=2 --set workload.shared_first_touch=node0"
    "--set machine.flush_engine=arm64 --set machine.arm64_tlbi_range=true --set transparent_hugepage.enabled=always"
)
i=0
for s in "${settings[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$NUMASIM" run small --quiet --duration 5 $s --json "$work/d$i.a.json" >/dev/null 2>&1 ||
        fail "run with '$s' failed"
    # shellcheck disable=SC2086
    NUMASIM_CHECK=1 "$NUMASIM" run small --quiet --duration 5 $s --json "$work/d$i.b.json" >/dev/null 2>"$work/d$i.err" ||
        fail "run with '$s' broke an invariant: $(cat "$work/d$i.err")"
    cmp -s "$work/d$i.a.json" "$work/d$i.b.json" || fail "two runs with '$s' differ"
done
echo "ok: ${#settings[@]} settings are deterministic and keep the invariants"

# ab: serial and parallel give the same figures
for j in 1 2; do
    "$NUMASIM" ab small --kernels v7.3,v7.3+single-folio-v1 --pairs 2 --duration 3 --jobs $j \
        --set transparent_hugepage.enabled=always --set workload.thp_partial=0.25 \
        --json "$work/ab$j.json" >/dev/null 2>&1 || fail "ab --jobs $j failed"
done
cmp -s "$work/ab1.json" "$work/ab2.json" || fail "ab with --jobs 1 and 2 differ"
echo "ok"
