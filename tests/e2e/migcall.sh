#!/usr/bin/env bash
# End-to-end: a migration call isolates its whole range before it migrates
# (queue_pages_range, then migrate_pages a batch at a time), on the 16-CPU
# "small" machine (2 nodes) with NUMA balancing on:
# - hint faults during a call find the folios of its later batches isolated:
#   their migrations fail (TNF_MIGRATE_FAIL), counted per call
#   ("hint_fault_migrate_fails" in the JSON, "hint fails" in the report);
#   with balancing off there are none;
# - mbind(MPOL_MF_MOVE) leaves the pages two processes map, migrate_pages(2)
#   (MPOL_MF_MOVE_ALL, a caller with CAP_SYS_NICE) moves them;
# - the invariant checks, the calls' lists among them, hold throughout.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
command -v jq >/dev/null || { echo "FAIL: jq is needed (scripts/deps.sh --test installs it)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/migcall.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

CALLS=(--set workload.migrate_at_s=2 --set workload.migrate_every_s=1 --duration 6)
run() { # name call [args]
    local name=$1 call=$2; shift 2
    "$NUMASIM" run small --check --set workload.migrate_call="$call" "${CALLS[@]}" "$@" \
        --json "$work/$name.json" >"$work/$name.txt" 2>"$work/$name.err" ||
        fail "$name: numasim run failed: $(cat "$work/$name.err")"
    grep -q 'invariants: .* none violated' "$work/$name.err" || fail "$name: $(cat "$work/$name.err")"
}
q() { jq -r "$2" "$work/$1.json"; }

run on migrate_pages
fails=$(q on '[.migrate_calls[].hint_fault_migrate_fails] | add')
moved=$(q on '[.migrate_calls[].pages_moved] | add')
echo "balancing on: $(q on '.migrate_calls | length') calls moved $moved pages; $fails hint faults found a page isolated by a call"
[[ $moved -gt 0 && $fails -gt 0 ]] || fail "no hint fault met a call's isolated pages ($fails), moved $moved"
grep -q 'hint fails' "$work/on.txt" || fail "the report has no hint fails column"

run off migrate_pages --set kernel.numa_balancing=0
[[ $(q off '[.migrate_calls[].hint_fault_migrate_fails] | add') -eq 0 ]] ||
    fail "hint fault failures with balancing off"

SHARED=(--set workload.processes=2 --set workload.threads=8 --set workload.map_shared=true)
run all migrate_pages "${SHARED[@]}"
run move mbind "${SHARED[@]}"
all=$(q all '.migrate_calls[0].pages_moved'); move=$(q move '.migrate_calls[0].pages_moved')
echo "two processes sharing half the memory, first call: migrate_pages moved $all pages, mbind $move"
[[ $move -gt 0 && $move -lt $all ]] || fail "mbind (MPOL_MF_MOVE) moved $move pages, migrate_pages $all"
[[ $(q move '[.migrate_calls[].pages_failed] | add') -eq 0 ]] || fail "shared pages counted as failures"
echo "migcall: ok"
