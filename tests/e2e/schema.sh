#!/usr/bin/env bash
# The JSON schemas of results (docs/schema/run.schema.json for 'numasim run
# --json', docs/schema/ab.schema.json for 'numasim ab --json'): runs and A/B
# results across the kinds of scenario validate (python3-jsonschema, draft
# 2020-12), and a result with a required key removed, a key renamed or a key
# added, or with some of a group of keys that come together, does not.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/schema.XXXXXX")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
run_schema=$root/docs/schema/run.schema.json
ab_schema=$root/docs/schema/ab.schema.json

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# A python3 with Debian's jsonschema (a pyenv python on PATH may lack it).
py=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import jsonschema' >/dev/null 2>&1; then py=$p; break; fi
done
[[ -n $py ]] || fail "no python3 with the jsonschema module: scripts/deps.sh --test installs python3-jsonschema"

# validate SCHEMA FILE...: every file valid (the schema checked first); the
# errors of the invalid ones on stdout, exit 1 if any
validate() {
    "$py" - "$@" <<'PY'
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
v = Draft202012Validator(schema)
bad = 0
for f in sys.argv[2:]:
    errs = sorted(v.iter_errors(json.load(open(f))), key=lambda e: list(e.absolute_path))
    for e in errs[:5]:
        print(f"{f}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    bad += bool(errs)
sys.exit(1 if bad else 0)
PY
}

cd "$work"
run() { # NAME ARGS...: numasim run ARGS --json NAME.json
    local name=$1; shift
    "$NUMASIM" run "$@" -q --json "run-$name.json" >/dev/null 2>"run-$name.err" ||
        fail "numasim run $*: $(cat "run-$name.err")"
}
ab() { # NAME ARGS...: numasim ab ARGS --json NAME.json
    local name=$1; shift
    "$NUMASIM" ab "$@" -q --json "ab-$name.json" >/dev/null 2>"ab-$name.err" ||
        fail "numasim ab $*: $(cat "ab-$name.err")"
}

run small small --duration 3
run fixed-work numa02 --duration 30                       # ends when the work is done
run migratepages-off migratepages --set kernel.numa_balancing=0 --duration 4   # migrate_calls
run seed seed --duration 3
run exact small --duration 3 --exact
run oracle small --duration 3 --oracle
run numa01 numa01 --duration 3                            # convergence of two processes
run thp-split seed-thp-split --duration 3                 # hugepages-2048kB/* counters
run mthp seed-mthp64k --duration 3 --kernel v7.3+mthp-numa
run arm64 small-arm64 --duration 2 --kernel v6.8 --set workload.threads=8
run tiered seed-tiered --duration 3                       # memory-only nodes: pgpromote_*, pgdemote_*
"$NUMASIM" run small --duration 2 --json - >run-stdout.json 2>/dev/null || fail "run --json - failed"
ab small small --kernels v7.3,v7.3+single-folio-v2 --pairs 2 --duration 2
ab seed seed --kernels v7.3,v7.3+single-folio-v2 --pairs 1 --duration 3   # with "published"
ab fixed-work numa02 --kernels v6.1,v7.3 --pairs 1 --duration 30           # elapsed_s
ab migratepages-off migratepages --kernels v5.15,v6.3 --balancing off --pairs 1 --duration 4
ab on small --kernels v7.3,v6.4 --balancing on --pairs 1 --duration 2
ab exact small --kernels v7.3 --pairs 1 --duration 2 --exact
ab tiered seed-tiered --kernels v7.3 --pairs 1 --duration 3

grep -q '"published"' ab-seed.json || fail "ab seed wrote no published figures: the test lost a case"
grep -q '"migrate_calls"' run-migratepages-off.json || fail "no migrate_calls: the test lost a case"
grep -q '"hugepages-2048kB/' run-thp-split.json || fail "no hugepages-2048kB counters: the test lost a case"
grep -q '"elapsed_s"' ab-fixed-work.json || fail "ab numa02 has no elapsed_s: the test lost a case"
grep -q '"pgpromote_success"' run-tiered.json || fail "no tiering counters: the test lost a case"

runs=(run-*.json) abs=(ab-*.json)
out=$(validate "$run_schema" "${runs[@]}") || fail "run results do not validate:
$out"
out=$(validate "$ab_schema" "${abs[@]}") || fail "ab results do not validate:
$out"

# ---- what must not validate ----------------------------------------------
# jq_to IN OUT FILTER
jq_to() { jq "$3" "$1" >"$2" || fail "jq $3 failed"; }
refused() { # SCHEMA FILE WHAT EXPECTED-MESSAGE
    local out
    if out=$(validate "$1" "$2"); then
        fail "$3 validates"
    fi
    grep -qF -- "$4" <<<"$out" || fail "$3: not the expected error '$4': $out"
}
jq_to run-small.json no-build.json 'del(.numasim_build)'
refused "$run_schema" no-build.json "a run without numasim_build" "'numasim_build' is a required property"
jq_to run-small.json renamed.json '.vmstat.numa_pte_update = .vmstat.numa_pte_updates | del(.vmstat.numa_pte_updates)'
refused "$run_schema" renamed.json "a run with a vmstat key renamed" "'numa_pte_updates' is a required property"
jq_to run-small.json extra.json '.stats.new_counter = 1'
refused "$run_schema" extra.json "a run with an unknown stats key" "Additional properties are not allowed ('new_counter'"
jq_to run-small.json type.json '.seed = "1"'
refused "$run_schema" type.json "a run whose seed is a string" "'1' is not of type 'integer'"
jq_to run-small.json scen.json 'del(.scenario.workload.threads)'
refused "$run_schema" scen.json "a run whose scenario lacks workload.threads" "'threads' is a required property"
jq_to run-tiered.json tier-part.json 'del(.vmstat.pgdemote_kswapd)'
refused "$run_schema" tier-part.json "a run with some of the tiering counters" "'pgdemote_kswapd' is a dependency of"
jq_to ab-small.json ab-no-build.json 'del(.numasim_build)'
refused "$ab_schema" ab-no-build.json "an ab without numasim_build" "'numasim_build' is a required property"
jq_to ab-small.json ab-no-fig.json 'del(.kernels["v7.3"].tlb_irqs)'
refused "$ab_schema" ab-no-fig.json "an ab kernel without tlb_irqs" "'tlb_irqs' is a required property"
jq_to ab-small.json ab-extra.json '.kernels["v7.3"].tlb_irq = [1]'
refused "$ab_schema" ab-extra.json "an ab kernel with an unknown figure" "Additional properties are not allowed ('tlb_irq'"
# a run is not an ab and the other way round
refused "$ab_schema" run-small.json "a run against the ab schema" "is a required property"
refused "$run_schema" ab-small.json "an ab against the run schema" "is a required property"

echo "schema: ${#runs[@]} run and ${#abs[@]} ab results validate; 11 broken ones do not"
