#!/usr/bin/env bash
# Bad input: every class of error exits with status 2, says where it is
# (FILE:LINE: KEY: for scenario files, OPTION: KEY: for command-line
# options) and leaves no --json output behind.  Each bad file is the
# built-in "small" scenario with one line changed, so it is otherwise valid.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bad_input.XXXXXX")
base="$work/small.ini"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

"$NUMASIM" show small >"$base" || fail "numasim show small failed"

# line_of REGEX: number of the one line of the base file matching ^REGEX.
line_of() {
    local n
    n=$(grep -n -E "^$1" "$base" | cut -d: -f1)
    [[ -n $n && $n != *$'\n'* ]] || fail "'^$1' must match exactly one line of $base"
    echo "$n"
}

# make_bad NAME REGEX NEWLINE: the base file with the line matching ^REGEX
# replaced by NEWLINE; prints the new file's path.
make_bad() {
    local f="$work/$1.ini" n
    n=$(line_of "$2")
    sed "${n}s/.*/$3/" "$base" >"$f"
    cmp -s "$base" "$f" && fail "$1: sed changed nothing"
    echo "$f"
}

# expect_error NAME EXPECTED ARGS...: run numasim ARGS with --json; the run
# must exit 2, print EXPECTED (a fixed string) on stderr and write no JSON.
expect_error() {
    local name=$1 want=$2
    shift 2
    local json="$work/$name.json" err="$work/$name.err" rc=0
    "$NUMASIM" "$@" --json "$json" --duration 0.1 --quiet >/dev/null 2>"$err" || rc=$?
    [[ $rc -eq 2 ]] || fail "$name: exit status $rc, expected 2; stderr: $(cat "$err")"
    grep -qF -- "$want" "$err" || fail "$name: stderr lacks '$want'; stderr: $(cat "$err")"
    [[ ! -e $json && ! -e $json.tmp ]] || fail "$name: $json was written"
    echo "ok: $name: $(head -n1 "$err")"
}

# expect_also NAME TEXT: the last stderr of NAME also says TEXT.
expect_also() {
    grep -qF -- "$2" "$work/$1.err" || fail "$1: stderr lacks '$2'; stderr: $(cat "$work/$1.err")"
}

f=$(make_bad unknown_section '\[run\]' '[gpu]')
expect_error unknown_section "$f:$(line_of '\[run\]'): gpu: unknown section" run "$f"

f=$(make_bad unknown_key 'vma_mib *=' 'vma_mb = 0')
expect_error unknown_key "$f:$(line_of 'vma_mib *='): workload.vma_mb: unknown key" run "$f"

f=$(make_bad malformed_number 'threads *=' 'threads = 12abc')
expect_error malformed_number "$f:$(line_of 'threads *='): workload.threads: '12abc'" run "$f"

f=$(make_bad malformed_enum 'flush_engine *=' 'flush_engine = sparc')
expect_error malformed_enum "$f:$(line_of 'flush_engine *='): machine.flush_engine: 'sparc'" run "$f"
expect_also malformed_enum "x86-ipi, x86-invlpgb, arm64, riscv"

f=$(make_bad out_of_range 'private_fraction *=' 'private_fraction = 1.5')
expect_error out_of_range "$f:$(line_of 'private_fraction *='): workload.private_fraction: 1.5 is out of range" run "$f"

f=$(make_bad dontneed_kib 'private_fraction *=' 'madvise_dontneed_kib = 1')
expect_error dontneed_kib "$f:$(line_of 'private_fraction *='): workload.madvise_dontneed_kib: 1 is out of range" run "$f"
expect_error dontneed_every_negative "--set: workload.madvise_dontneed_every_ms: -1 is out of range" \
    run small --set workload.madvise_dontneed_every_ms=-1

f=$(make_bad zero_cpus 'cores_per_node *=' 'cores_per_node = 0')
expect_error zero_cpus "$f:$(line_of 'cores_per_node *='): machine.cores_per_node:" run "$f"
expect_also zero_cpus "no CPUs"

f=$(make_bad cpus_mismatch 'cpus *=' 'cpus = 999')
expect_error cpus_mismatch "$f:$(line_of 'cpus *='): machine.cpus: 999 CPUs but the topology gives 16" run "$f"
expect_also cpus_mismatch "cores_per_node 4 (line $(line_of 'cores_per_node *='))"
# a --set of one side of the product is blamed, not the file's other side
expect_error cpus_set_cores "--set: machine.cores_per_node: the topology gives 32 CPUs" \
    run small --set machine.cores_per_node=8
expect_also cpus_set_cores "machine.cpus is 16 (builtin:small:$(line_of 'cpus *='))"

# 2 nodes x 0.25 GiB cannot hold memory_gib = 1: reported at memory_gib.
f=$(make_bad memory 'mem_per_node_gib *=' 'mem_per_node_gib = 0.25')
expect_error memory "$f:$(line_of 'memory_gib *='): workload.memory_gib: needs 1 GiB" run "$f"

expect_error bind_unknown "--set: workload.bind:" run small --set workload.bind=socket
expect_error run_without_sleep "workload.run_ms: run_ms and sleep_ms go together" \
    run small --set workload.run_ms=5
expect_error sleep_negative "--set: workload.sleep_ms:" run small --set workload.sleep_ms=-1

expect_error set_unknown_key "--set: bogus.key: unknown key" run small --set bogus.key=1
expect_error set_bad_value "--set: workload.threads: 'x'" run small --set workload.threads=x
expect_error set_cross_field "--set: workload.memory_gib: needs 100 GiB" \
    run small --set workload.memory_gib=100
expect_error unknown_kernel "--kernel: kernel.name: unknown kernel base 'v9.9'" run small --kernel v9.9

# the workloads' keys and the migration calls' schedule
mc=(--set workload.migrate_call=migrate_pages)
expect_error call_unknown "--set: workload.migrate_call: 'teleport' is not one of" \
    run small --set workload.migrate_call=teleport
expect_error call_no_process "workload.migrate_process: process 3 does not exist (1 process)" \
    run small "${mc[@]}" --set workload.migrate_process=3
expect_error call_node_range "workload.migrate_from: the machine has nodes 0 to 1" \
    run small "${mc[@]}" --set workload.migrate_from=5
expect_error call_same_node "workload.migrate_to: migrate_from and migrate_to are the same node" \
    run small "${mc[@]}" --set workload.migrate_from=1 --set workload.migrate_to=1
expect_error call_after_run "workload.migrate_at_s: 50 s is not within the run (0.1 s)" \
    run small "${mc[@]}" --set workload.migrate_at_s=50
expect_error access_unknown "--set: workload.access: 'zipf' is not one of" run small --set workload.access=zipf
expect_error work_negative "--set: workload.work_mops: -1 is out of range" run small --set workload.work_mops=-1
expect_error policy_node_range "workload.private_first_touch: names a node the machine does not have" \
    run small --set workload.private_first_touch=bind:9
expect_error policy_unknown "--set: workload.shared_first_touch:" \
    run small --set workload.shared_first_touch=everywhere
expect_error eat_node_range "workload.eat_node: eat_gib needs eat_node, a node of the machine (0 to 1)" \
    run small --set workload.eat_node=7
expect_error phase_no_slices "workload.phase_every_s: phases trade the threads' private slices" \
    run small --set workload.phase_every_s=5 --set workload.private_fraction=0 --set workload.private_access_share=0
expect_error phase_shift_all "workload.phase_shift: 16 is a multiple of the 16 threads" \
    run small --set workload.phase_every_s=5 --set workload.phase_shift=16
expect_error phase_shift_alone "workload.phase_shift: phase_shift needs phase_every_s" \
    run small --set workload.phase_shift=3
expect_error mem_bw_negative "--set: machine.mem_bw_gbs: -1 is out of range" run small --set machine.mem_bw_gbs=-1
expect_error bytes_per_op_zero "--set: workload.bytes_per_op: 0 is out of range" run small --set workload.bytes_per_op=0
expect_error ab_balancing "--balancing: 'sideways' is not both, on or off" \
    ab small --kernels v7.3 --balancing sideways

missing="$work/no-such-scenario.ini"
expect_error missing_file "$missing: No such file or directory" run "$missing"
expect_error unknown_builtin "no-such-scenario: no such scenario" run no-such-scenario

echo "bad_input: all cases passed"
