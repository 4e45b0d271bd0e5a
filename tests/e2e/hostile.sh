#!/usr/bin/env bash
# The hostile-input regression corpus (issue 8): scenario files, scenario
# and option values, result files for compare and plot that once crashed,
# hung, ran a default silently, ran gnuplot commands, reached the terminal
# raw, or were accepted leniently.  Every one must get a clear error on
# stderr (naming what is wrong, with no raw control bytes), exit status 2,
# within seconds, and nothing written: the working directory is the same
# after the run as before, and no --json or -o output appears.
#
# The cases are generated here from the built-in "small" scenario (one line
# changed) or written out byte for byte, so the corpus is readable in one
# place.  The fuzzers' seed corpus (tests/fuzz/corpus) holds the same files.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX")
cases=$work/cases
run_dir=$work/cwd
mkdir -p "$cases" "$run_dir"
cd "$run_dir"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

"$NUMASIM" show small >"$cases/small.ini"
base="$cases/small.ini"

# small_with NAME REGEX LINE: the small scenario with its line matching
# ^REGEX replaced by LINE (printf %b escapes in LINE are expanded).
small_with() {
    local f="$cases/$1.ini" n
    n=$(grep -n -E "^$2" "$base" | cut -d: -f1)
    [[ -n $n && $n != *$'\n'* ]] || fail "'^$2' must match one line of small.ini"
    { head -n $((n - 1)) "$base"; printf '%b\n' "$3"; tail -n +$((n + 1)) "$base"; } >"$f"
    echo "$f"
}

# small_plus NAME TEXT: the small scenario with TEXT (printf %b) appended.
small_plus() {
    local f="$cases/$1.ini"
    { cat "$base"; printf '%b' "$2"; } >"$f"
    echo "$f"
}

# bytes NAME TEXT: a file of exactly TEXT (printf %b).
bytes() {
    local f="$cases/$1"
    printf '%b' "$2" >"$f"
    echo "$f"
}

nr=0
# expect NAME WANT ARGS...: numasim ARGS exits 2 within 20 s, says WANT (a
# fixed string) on stderr with no raw control byte, writes nothing.
expect() {
    local name=$1 want=$2 rc=0 before after
    shift 2
    before=$(ls -A "$run_dir" | tr '\n' ' ')
    timeout 20 "$NUMASIM" "$@" >"$work/out" 2>"$work/err" </dev/null || rc=$?
    [[ $rc -eq 2 ]] || fail "$name: exit status $rc, expected 2; stderr: $(cat -v "$work/err" | head -5)"
    grep -qF -- "$want" "$work/err" || fail "$name: stderr lacks '$want'; stderr: $(cat -v "$work/err" | head -5)"
    ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work/err" || fail "$name: raw control bytes on stderr: $(cat -v "$work/err")"
    after=$(ls -A "$run_dir" | tr '\n' ' ')
    [[ $before == "$after" ]] || fail "$name: files written: $after"
    [[ ! -e PWNED && ! -e "$cases/PWNED" ]] || fail "$name: a command from the input ran"
    nr=$((nr + 1))
}

J="--json $run_dir/out.json --duration 0.1 --quiet"

# ---- scenario files: empty, not text, not a file --------------------------
f=$(bytes empty.ini '')
expect empty_file "$f: no [machine] section" run "$f" $J
f=$(bytes comments.ini '# only a comment\n; and another\n\n')
expect comment_only "$f: no [machine] section" run "$f" $J
f=$(bytes nul_first.ini '\0[machine]\nsockets = 2\n')
expect nul_first "$f:1: a NUL byte 0x00" run "$f" $J
f=$(small_with nul_in_key 'threads *=' 'thr\0eads = 8')
expect nul_in_key "$f:$(grep -a -n '^thr' "$f" | cut -d: -f1): a NUL byte" run "$f" $J
f=$(small_with esc_in_value 'threads *=' 'threads = \033]0;owned\007')
expect esc_in_value "a control byte 0x1b" run "$f" $J
f=$(small_with esc_in_key 'threads *=' '\033[2Jthreads = 8')
expect esc_in_key "a control byte 0x1b" run "$f" $J
f=$(bytes only_workload.ini '[workload]\nthreads = 4\n')
expect no_machine_section "$f: no [machine] section" run "$f" $J
f=$(bytes only_machine.ini '[machine]\nsockets = 2\n')
expect no_workload_section "$f: no [workload] section" run "$f" $J
expect dev_null "/dev/null: is a device" run /dev/null $J
expect dev_zero "/dev/zero: is a device" run /dev/zero $J
mkfifo "$cases/fifo.ini"
expect fifo_scenario "fifo.ini: is a FIFO" run "$cases/fifo.ini" $J
mkdir "$cases/dir.ini"
expect dir_scenario "dir.ini: is a directory" run "$cases/dir.ini" $J
f="$cases/huge.ini"; { cat "$base"; head -c 1100000 /dev/zero | tr '\0' '#'; } >"$f"
expect huge_scenario "more than the 1048576 a file of this kind can have" run "$f" $J
f=$(small_plus long_line "# $(head -c 300 /dev/zero | tr '\0' x)\n")
expect long_line "line longer than" run "$f" $J
expect missing_file "$cases/nope.ini: No such file or directory" run "$cases/nope.ini" $J

# ---- INI structure ----------------------------------------------------------
f=$(small_with section_junk '\[workload\]' '[workload] junk')
expect section_junk "workload: unexpected text after the section header" run "$f" $J
f=$(small_with section_unclosed '\[workload\]' '[workload')
expect section_unclosed "expected '[section]' or 'key = value'" run "$f" $J
f=$(small_with section_unknown '\[run\]' '[gpu]')
expect section_unknown "gpu: unknown section" run "$f" $J
f=$(bytes outside.ini 'threads = 4\n[machine]\n[workload]\n')
expect key_outside_section "threads: key outside any section" run "$f" $J
f=$(small_plus repeated_key '[workload]\nthreads = 8\n')
expect repeated_key "workload.threads: set twice (first at line" run "$f" $J
f=$(small_with unknown_key 'vma_mib *=' 'vma_mb = 0')
expect unknown_key "workload.vma_mb: unknown key" run "$f" $J
f=$(small_with key_no_value 'threads *=' 'threads')
expect key_without_equals "expected '[section]' or 'key = value'" run "$f" $J
f=$(small_with empty_value 'threads *=' 'threads =')
expect empty_value "workload.threads: '' is not an integer" run "$f" $J

# ---- numbers written leniently -----------------------------------------------
f=$(small_with hex_int 'threads *=' 'threads = 0x10')
expect hex_int "workload.threads: '0x10' is not an integer" run "$f" $J
f=$(small_with hex_float 'memory_gib *=' 'memory_gib = 0x1p0')
expect hex_float "workload.memory_gib: '0x1p0' is not a decimal number" run "$f" $J
f=$(small_with inf_value 'memory_gib *=' 'memory_gib = inf')
expect inf_value "'inf' is not a decimal number" run "$f" $J
f=$(small_with nan_value 'cpu_ns_per_op *=' 'cpu_ns_per_op = nan')
expect nan_value "'nan' is not a decimal number" run "$f" $J
f=$(small_with huge_exponent 'cpu_ns_per_op *=' 'cpu_ns_per_op = 1e999')
expect huge_exponent "'1e999' is not a decimal number" run "$f" $J
f=$(small_with plus_sign 'threads *=' 'threads = +8')
expect plus_sign "'+8' is not an integer" run "$f" $J
f=$(small_with two_numbers 'threads *=' 'threads = 8 8')
expect two_numbers "'8 8' is not an integer" run "$f" $J
f=$(small_with int_overflow 'threads *=' 'threads = 99999999999999999999')
expect int_overflow "'99999999999999999999' is not an integer" run "$f" $J
f=$(small_with negative_unsigned 'vma_mib *=' 'vma_mib = -1')
expect negative_unsigned "workload.vma_mib: -1 is out of range" run "$f" $J
f=$(small_with bad_bool 'map_shared *=' 'map_shared = maybe')
expect bad_bool "'maybe' is not a boolean" run "$f" $J
f=$(small_with bad_engine 'flush_engine *=' 'flush_engine = sparc')
expect bad_engine "'sparc' is not one of" run "$f" $J
f=$(small_with bad_first_touch 'private_first_touch *=' 'private_first_touch = far')
expect bad_first_touch "'far' is not one of" run "$f" $J
f=$(small_with seed_negative 'seed *=' 'seed = -1')
expect seed_negative "run.seed: '-1' is not an integer from 0 to" run "$f" $J
f=$(small_with seed_too_big 'seed *=' 'seed = 9223372036854775808')
expect seed_too_big "run.seed: '9223372036854775808'" run "$f" $J
f=$(small_with seed_float 'seed *=' 'seed = 1e3')
expect seed_float "run.seed: '1e3'" run "$f" $J

# ---- durations ---------------------------------------------------------------
f=$(small_with duration_zero 'duration_s *=' 'duration_s = 0')
expect duration_zero "run.duration_s: 0 is out of range (allowed: at least 0.001" run "$f"
f=$(small_with duration_tiny 'duration_s *=' 'duration_s = 1e-12')
expect duration_tiny "run.duration_s: 1e-12 is out of range" run "$f"
expect duration_huge "--duration: run.duration_s: 1e9 is out of range" run small --duration 1e9
expect duration_hex "--duration: run.duration_s: '0x1' is not a decimal number" run small --duration 0x1
expect duration_negative "--duration: run.duration_s: -1 is out of range" run small --duration -1
expect duration_empty "--duration: run.duration_s: '' is not a decimal number" run small --duration ''
expect duration_inf "'inf' is not a decimal number" run small --duration inf

# ---- kernel names --------------------------------------------------------------
expect kernel_trailing_plus "'v7.3+': an empty patch name after the last '+'" run small --kernel v7.3+ $J
expect kernel_leading_plus "'+v7.3': no kernel base before '+'" run small --kernel +v7.3 $J
expect kernel_double_plus "'v7.3++flush-side': an empty patch name between '+' signs" \
    run small --kernel v7.3++flush-side $J
expect kernel_patch_twice "patch 'flush-side' given twice" run small --kernel v7.3+flush-side+flush-side $J
expect kernel_unknown_patch "unknown patch 'fix'" run small --kernel v7.3+fix $J
expect kernel_unknown_base "unknown kernel base 'v9.9'" run small --kernel v9.9 $J
expect kernel_empty "an empty kernel name" run small --kernel '' $J
expect kernel_too_long "kernel name too long" run small --kernel "v7.3+$(head -c 300 /dev/zero | tr '\0' a)" $J
f=$(small_with kernel_in_file 'name *=' 'name = v7.3+')
expect kernel_in_file "kernel.name: 'v7.3+'" run "$f" $J

# ---- cross-field and size ---------------------------------------------------------
f=$(small_with hz_not_divisor 'hz *=' 'hz = 7')
expect hz_not_divisor "machine.hz: 7 does not divide 1000000000" run "$f" $J
f=$(small_with zero_sockets 'sockets *=' 'sockets = 0')
expect zero_sockets "machine.sockets: 0 leaves the machine with no CPUs" run "$f" $J
expect too_many_cpus "CPUs but at most 4096 are supported" \
    run small --set machine.cores_per_node=4096 $J
expect too_many_nodes "NUMA nodes but at most 64 are supported" run small --set machine.nodes_per_socket=40 $J
expect cpus_mismatch "--set: machine.cores_per_node: the topology gives 32 CPUs" \
    run small --set machine.cores_per_node=8 $J
expect scan_min_over_max "scan_period_min_ms (70000) is above scan_period_max_ms" \
    run small --set numa_balancing.scan_period_min_ms=70000 $J
expect share_without_pages "hot_access_share is 0.8 but hot_fraction is 0" \
    run small --set workload.hot_fraction=0 $J
expect distance_local "machine.distance_remote: 10 is out of range" run small --set machine.distance_remote=10 $J
expect memory_over_machine "workload.memory_gib: needs 100 GiB" run small --set workload.memory_gib=100 $J
expect memory_over_host "of this computer's memory" \
    run small --set machine.mem_per_node_gib=1000000 --set workload.memory_gib=100000 $J
expect processes_range "workload.processes: 5000 is out of range" run small --set workload.processes=5000 $J

# ---- options ------------------------------------------------------------------------
expect set_no_equals "--set: workload.threads: expected KEY=VALUE" run small --set workload.threads $J
expect set_unknown_key "--set: bogus.key: unknown key" run small --set bogus.key=1 $J
expect set_esc_value "--set: workload.threads: '\\x1b[31m' is not an integer" \
    run small --set $'workload.threads=\e[31m' $J
expect set_too_long "too long" run small --set "workload.threads=$(head -c 600 /dev/zero | tr '\0' 1)" $J
expect seed_option "--seed: run.seed: 'abc'" run small --seed abc $J
expect unknown_option "unknown option '--frobnicate'" run small --frobnicate $J
expect two_scenarios "expected one SCENARIO or FILE, got 2" run small small $J
expect json_dir "--json: $cases is a directory" run small --duration 0.1 --json "$cases"
expect json_fifo "is a FIFO" run small --duration 0.1 --json "$cases/fifo.ini"
expect json_device "--json: /dev/full is a device" run small --duration 0.1 --json /dev/full
expect json_no_dir "no such directory" run small --duration 0.1 --json "$cases/none/x.json"
expect json_is_trace "name the same file" run small --duration 0.1 --json "$run_dir/t.json" --trace "$run_dir/t"
expect json_is_scenario "is the scenario file being run" run "$base" --duration 0.1 --json "$base"
expect trace_window_hex "--trace-window: '0x1:2' is not START:END" run small --trace "$run_dir/t" --trace-window 0x1:2 $J
expect trace_window_reversed "END must be after START" run small --trace "$run_dir/t" --trace-window 5:1 $J
expect trace_window_late "starts after the run's end" run small --trace "$run_dir/t" --trace-window 50:60 $J
expect trace_max_zero "--trace-max-mb: '0'" run small --trace "$run_dir/t" --trace-max-mb 0 $J
expect trace_max_hex "--trace-max-mb: '0x10'" run small --trace "$run_dir/t" --trace-max-mb 0x10 $J
expect trace_events_unknown "--trace-events: unknown event 'bogus'" run small --trace "$run_dir/t" --trace-events bogus $J
expect trace_without_trace "--trace-window needs --trace FILE" run small --trace-window 1:2 $J
expect trace_over_limit "trace over its size limit" \
    run small --duration 20 --quiet --trace "$run_dir/t" --trace-max-mb 1 --json "$run_dir/out.json"
expect ab_same_kernel "'v7.3' and 'v7.3' are the same kernel" \
    ab small --kernels v7.3,v7.3 --pairs 1 --duration 0.1 --json "$run_dir/ab.json"
expect ab_same_kernel_spelt "are the same kernel" \
    ab small --kernels v7.3+flush-side+single-folio-v2,v7.3+single-folio-v2+flush-side --pairs 1 --duration 0.1
expect ab_empty_kernel "is not a comma-separated list" ab small --kernels v7.3,,v6.4 --pairs 1 --duration 0.1
expect ab_pairs_zero "--pairs: '0' is not a number in 1..64" ab small --kernels v7.3 --pairs 0
expect ab_pairs_hex "--pairs: '0x3'" ab small --kernels v7.3 --pairs 0x3
expect ab_pairs_plus "--pairs: '+3'" ab small --kernels v7.3 --pairs +3
expect ab_jobs_zero "--jobs: '0'" ab small --kernels v7.3 --jobs 0
expect timeline_pass_zero "--pass: '0' is not a number >= 1" timeline small --pass 0
expect timeline_pass_hex "--pass: '0x1'" timeline small --pass 0x1

# ---- result files for compare and plot -------------------------------------------------
"$NUMASIM" run small --duration 1 --quiet --json "$cases/run.json" >/dev/null
"$NUMASIM" ab small --kernels v7.3 --pairs 1 --duration 0.5 --json "$cases/ab.json" >/dev/null 2>&1
# the gnuplot injection of the review: a kernel key ending the datablock
jq '.kernels |= with_entries(.key = "v\nEOD\nsystem \"touch PWNED\"\n$x << EOD\n")' "$cases/ab.json" \
    >"$cases/ab_eod.json"
jq '.kernel = "v\nEOD\nsystem \"touch PWNED\"\n$x << EOD\n"' "$cases/run.json" >"$cases/run_eod.json"
jq '.kernel = "\u001b]2;owned\u0007\u001b[2J"' "$cases/run.json" >"$cases/run_esc.json"
jq '.scenario.name = "\u001b[31mred"' "$cases/run.json" >"$cases/run_scen_esc.json"
jq '.kernel = "v7.3\r"' "$cases/run.json" >"$cases/run_cr.json"
jq '.kernels |= with_entries(.key = "v7.3\u001b[1m")' "$cases/ab.json" >"$cases/ab_esc.json"
jq '.scenario = 5' "$cases/run.json" >"$cases/run_scen_num.json"
sed '1a\  "seed": 7,' "$cases/run.json" >"$cases/run_dup.json"   # "seed" twice
for tool in compare plot; do
    out=(); [[ $tool == plot ]] && out=(-o "$run_dir/p.svg")
    expect ${tool}_ab_eod "kernel 'v\\x0aEOD\\x0asystem" $tool "$cases/ab_eod.json" "${out[@]}"
    expect ${tool}_run_eod "kernel 'v\\x0aEOD" $tool "$cases/run_eod.json" "${out[@]}"
    expect ${tool}_run_esc "kernel '\\x1b]2;owned\\x07\\x1b[2J' is not a kernel name" $tool "$cases/run_esc.json" "${out[@]}"
    expect ${tool}_scen_esc "the scenario name '\\x1b[31mred'" $tool "$cases/run_scen_esc.json" "${out[@]}"
    expect ${tool}_run_cr "kernel 'v7.3\\x0d'" $tool "$cases/run_cr.json" "${out[@]}"
    expect ${tool}_ab_esc "is not a kernel name" $tool "$cases/ab_esc.json" "${out[@]}"
    expect ${tool}_scen_num "\"scenario\" is neither a name nor an object" $tool "$cases/run_scen_num.json" "${out[@]}"
    expect ${tool}_dup_key "duplicate object key" $tool "$cases/run_dup.json" "${out[@]}"
    f=$(bytes notjson.json 'not json at all\n')
    expect ${tool}_not_json "not JSON" $tool "$f" "${out[@]}"
    f=$(bytes array.json '[1, 2, 3]\n')
    expect ${tool}_array "not a numasim result" $tool "$f" "${out[@]}"
    f=$(bytes empty.json '')
    expect ${tool}_empty "not JSON" $tool "$f" "${out[@]}"
    f=$(bytes nul.json '{"kernel": "v7.3\\u0000x"}\n')
    expect ${tool}_nul_string "not JSON" $tool "$f" "${out[@]}"
    f=$(bytes badutf8.json '{"kernel": "\xff\xfe"}\n')
    expect ${tool}_bad_utf8 "not JSON" $tool "$f" "${out[@]}"
    f="$cases/deep.json"; { head -c 100000 /dev/zero | tr '\0' '['; } >"$f"
    expect ${tool}_deep "not JSON" $tool "$f" "${out[@]}"
    expect ${tool}_fifo "is a FIFO" $tool "$cases/fifo.ini" "${out[@]}"
    expect ${tool}_dev_zero "/dev/zero: is a device" $tool /dev/zero "${out[@]}"
    expect ${tool}_dir "is a directory" $tool "$cases" "${out[@]}"
    truncate -s 100M "$cases/sparse.json"
    expect ${tool}_huge "more than the 67108864 a file of this kind can have" $tool "$cases/sparse.json" "${out[@]}"
    rm -f "$cases/sparse.json"
    expect ${tool}_missing "No such file or directory" $tool "$cases/none.json" "${out[@]}"
    expect ${tool}_mixed "cannot mix run and ab results" $tool "$cases/run.json" "$cases/ab.json" "${out[@]}"
done
expect compare_unknown_metric "unknown metric 'bogus'" compare "$cases/run.json" --metric bogus
expect plot_control_in_output "-o: the file name has a control character (0x0a)" \
    plot "$cases/run.json" -o "$run_dir/"$'a\nb.svg'
expect plot_output_dir "-o: $cases is a directory" plot "$cases/run.json" -o "$cases"
expect plot_output_type "unknown image type" plot "$cases/run.json" -o "$run_dir/p.eps"

# ---- result files of the wrong shape (issue 28) -----------------------------------------
# Each field compare and plot read, given the wrong type, a negative count,
# a value gnuplot cannot draw, a series of the wrong length or missing:
# refused by the one schema check of the reader, naming the file and the
# field.  The files are kept in tests/fuzz/corpus/results/shape-*.json.
"$NUMASIM" run small --duration 3 --quiet --json "$cases/run3.json" >/dev/null
# shape NAME BASE JQ-FILTER WANT: BASE (run3 or ab) mutated by the filter,
# refused by compare and plot with WANT on stderr.
shape() {
    local f="$cases/shape-$1.json"
    jq "$3" "$cases/$2.json" >"$f" || fail "shape $1: jq failed"
    expect "compare_shape_$1" "$f: $4" compare "$f"
    expect "plot_shape_$1" "$f: $4" plot "$f" -o "$run_dir/p.svg"
}
num='expected a number or null, got'
shape seed_string run3 '.seed = "1"' 'seed: expected an integer, got a string'
shape seed_negative run3 '.seed = -1' 'seed: -1 is out of range'
shape seed_real run3 '.seed = 1e30' 'seed: expected an integer, got a number'
shape seconds_string run3 '.simulated_seconds = "3"' 'simulated_seconds: expected a number, got a string'
shape seconds_zero run3 '.simulated_seconds = 0' 'simulated_seconds: 0 is not a duration'
shape vmstat_string run3 '.vmstat.numa_pte_updates = "5"' "vmstat.numa_pte_updates: $num a string"
shape vmstat_negative run3 '.vmstat.pgmigrate_success = -5' 'vmstat.pgmigrate_success: -5 is out of range (0 to 1e+18)'
shape vmstat_object run3 '.vmstat.numa_hint_faults = {}' "vmstat.numa_hint_faults: $num an object"
shape vmstat_array run3 '.vmstat.numa_hint_faults = [1]' "vmstat.numa_hint_faults: $num an array"
shape vmstat_huge run3 '.vmstat.numa_pages_migrated = 1e308' 'vmstat.numa_pages_migrated: 1e+308 is out of range'
shape interrupts_array run3 '.interrupts = [1]' 'interrupts: expected an object, got an array'
shape interrupts_string run3 '.interrupts.tlb_shootdowns = "NaN"' "interrupts.tlb_shootdowns: $num a string"
shape cost_negative run3 '.cost_ns.scan = -1' 'cost_ns.scan: -1 is out of range'
shape cost_string run3 '.cost_ns = "x"' 'cost_ns: expected an object, got a string'
shape throughput_string run3 '.throughput_ops_per_s = "NaN"' "throughput_ops_per_s: $num a string"
shape throughput_negative run3 '.throughput_ops_per_s = -1' 'throughput_ops_per_s: -1 is out of range'
shape throughput_huge run3 '.throughput_ops_per_s = 1e308' 'throughput_ops_per_s: 1e+308 is out of range'
shape cpu_seconds_object run3 '.cpu_seconds_per_node = {}' 'cpu_seconds_per_node: expected an array, got an object'
shape cpu_seconds_string run3 '.cpu_seconds_per_node[0] = "1"' 'cpu_seconds_per_node[0]: expected a number, got a string'
shape tunables_array run3 '.tunables = []' 'tunables: expected an object, got an array'
shape balancing_string run3 '.tunables["kernel.numa_balancing"] = "on"' \
    'tunables.kernel.numa_balancing: expected an integer, got a string'
shape series_object run3 '.timeseries.tlb_irqs_per_s = {}' 'timeseries.tlb_irqs_per_s: expected an array, got an object'
shape series_number run3 '.timeseries.scan_period_ms = 5' 'timeseries.scan_period_ms: expected an array, got a number'
shape series_nan_string run3 '.timeseries.tlb_irqs_per_s[1] = "NaN"' "timeseries.tlb_irqs_per_s[1]: $num a string"
shape series_array_value run3 '.timeseries.pass_ms[2] = [1]' "timeseries.pass_ms[2]: $num an array"
shape series_negative run3 '.timeseries.migrations_per_s[1] = -3' 'timeseries.migrations_per_s[1]: -3 is out of range'
shape series_huge run3 '.timeseries.tlb_irqs_per_s |= map(1e308)' 'timeseries.tlb_irqs_per_s[0]: 1e+308 is out of range'
shape series_short run3 '.timeseries.pass_ms |= .[1:]' 'timeseries.pass_ms: 2 values, expected 3 (one per second of timeseries.t_s)'
shape series_long run3 '.timeseries.tlb_irqs_per_s += [1, 2]' 'timeseries.tlb_irqs_per_s: 5 values, expected 3'
shape series_huge_array run3 '.timeseries.migrations_per_s = [range(200000) | 1]' \
    'timeseries.migrations_per_s: 200000 values, expected 3'
shape t_missing run3 '.timeseries |= del(.t_s)' 'timeseries.t_s: missing'
shape t_string run3 '.timeseries.t_s = "1 2 3"' 'timeseries.t_s: expected an array, got a string'
shape t_null run3 '.timeseries.t_s[0] = null' 'timeseries.t_s[0]: expected a number, got null'
shape t_negative run3 '.timeseries.t_s[0] = -1' 'timeseries.t_s[0]: -1 is out of range'
shape t_falling run3 '.timeseries.t_s |= reverse' 'timeseries.t_s[1]: 2 after 3: the seconds must rise'
shape hist_string run3 '.histograms = "x"' 'histograms: expected an object, got a string'
shape hist_array run3 '.histograms.numa_gather_us = [1]' 'histograms.numa_gather_us: expected an object, got an array'
shape hist_count_object run3 '.histograms.numa_gather_us.count = {}' 'histograms.numa_gather_us.count: expected an array, got an object'
shape hist_count_negative run3 '.histograms.numa_gather_us.count[0] = -1' 'histograms.numa_gather_us.count[0]: -1 is out of range'
shape hist_many_buckets run3 '.histograms.numa_gather_us |= {lower_us: [range(100)], count: [range(100) | 0]}' \
    'histograms.numa_gather_us.count: 100 buckets, at most 64'
shape hist_bounds_short run3 '.histograms.migrate_flush_delay_ns.lower_ns |= .[1:]' \
    'histograms.migrate_flush_delay_ns.lower_ns: 31 values, expected 32 (one per bucket of count)'
shape nodes_object run3 '.node_vmstat = {}' 'node_vmstat: expected an array, got an object'
shape nodes_string run3 '.node_vmstat[0] = "x"' 'node_vmstat[0]: expected an object, got a string'
shape nodes_negative run3 '.node_vmstat[1].numa_hit = -1' 'node_vmstat[1].numa_hit: -1 is out of range'
shape nodes_many run3 '.node_vmstat = [range(100) | {numa_hit: 1}]' 'node_vmstat: 100 nodes, at most 64'
shape pairs_zero ab '.pairs = 0' 'pairs: 0 is out of range (1 to 100000)'
shape pairs_negative ab '.pairs = -3' 'pairs: -3 is out of range'
shape pairs_huge ab '.pairs = 1000000000' 'pairs: 1000000000 is out of range'
shape pairs_mismatch ab '.pairs = 2' 'kernels.v7.3.throughput_loss: 1 values, expected 2 (one per pair)'
shape ab_seconds_string ab '.simulated_seconds = "0.5"' 'simulated_seconds: expected a number, got a string'
shape ab_first_seed_string ab '.first_seed = "1"' 'first_seed: expected an integer, got a string'
shape figure_string ab '.kernels["v7.3"].throughput_loss = "0.1"' 'kernels.v7.3.throughput_loss: expected an array, got a string'
shape figure_object ab '.kernels["v7.3"].throughput_loss = {}' 'kernels.v7.3.throughput_loss: expected an array, got an object'
shape figure_number ab '.kernels["v7.3"].tlb_irqs_per_migrated_page = 5' \
    'kernels.v7.3.tlb_irqs_per_migrated_page: expected an array, got a number'
shape figure_nan_string ab '.kernels["v7.3"].throughput_loss[0] = "NaN"' "kernels.v7.3.throughput_loss[0]: $num a string"
shape figure_huge ab '.kernels["v7.3"].kernel_cycles_per_hinting_pte[0] = 1e308' \
    'kernels.v7.3.kernel_cycles_per_hinting_pte[0]: 1e+308 is out of range'
shape figure_huge_negative ab '.kernels["v7.3"].throughput_loss[0] = -1e308' \
    'kernels.v7.3.throughput_loss[0]: -1e+308 is out of range'
shape figure_long ab '.kernels["v7.3"].throughput_loss = [range(100000) | 0.1]' \
    'kernels.v7.3.throughput_loss: 100000 values, expected 1 (one per pair)'
shape extra_cost_array ab '.kernels["v7.3"].extra_cost_ns = [1]' 'kernels.v7.3.extra_cost_ns: expected an object, got an array'
shape extra_cost_value ab '.kernels["v7.3"].extra_cost_ns.scan = [{}]' "kernels.v7.3.extra_cost_ns.scan[0]: $num an object"
shape off_runs_number ab '.kernels["v7.3"].balancing_off_runs_of = 3' \
    'kernels.v7.3.balancing_off_runs_of: expected a string, got a number'
shape reused_negative ab '.kernels["v7.3"].balancing_off_runs_reused = -1' \
    'kernels.v7.3.balancing_off_runs_reused: -1 is out of range (0 to 1)'
shape published_string ab '.published = "x"' 'published: expected an object, got a string'
shape published_reversed ab '.published = {source: "s", kernels: {"v7.3": {throughput_loss: [2, 1]}}}' \
    "published.kernels.v7.3.throughput_loss: the range's low end is above its high end"
shape published_short ab '.published = {source: "s", kernels: {"v7.3": {throughput_loss: [1]}}}' \
    'published.kernels.v7.3.throughput_loss: 1 values, expected 2 (a range: low, high)'
shape published_source_esc ab '.published = {source: "\u001b[2J", kernels: {}}' \
    'published.source: characters numasim never writes'
# the readers' way in before the schema: still "not a numasim result"
shape vmstat_array_whole run3 '.vmstat = []' 'not a numasim result'
shape timeseries_array run3 '.timeseries = []' 'not a numasim result'
shape kernel_missing run3 'del(.kernel)' 'not a numasim result'
shape pairs_string ab '.pairs = "1"' 'not a numasim result'
shape kernels_array ab '.kernels = []' 'not a numasim result'
shape kernel_string ab '.kernels["v7.3"] = "x"' 'not a numasim result'

# ---- outputs that cannot be created fail before the run (issue 28) ------------------------
# An hour of small takes over a minute: expect's 20 s limit would catch a
# check made only after the run.
if [[ -d /proc/self ]]; then
    long="--duration 3600 --quiet"
    expect json_proc "--json: /proc/x.json: cannot create a file in '/proc'" run small $long --json /proc/x.json
    expect trace_proc "--trace: /proc/t.json: cannot create a file in '/proc'" run small $long --trace /proc/t
    expect ab_json_proc "--json: /proc/x.json: cannot create a file in '/proc'" \
        ab small --kernels v7.3 --pairs 1 $long --json /proc/x.json
    expect plot_proc "-o: /proc/x.svg: cannot create a file in '/proc'" plot "$cases/run.json" -o /proc/x.svg
fi

# A valid scenario behind an escape sequence in its file name: the run
# goes ahead, and the report names the file without the raw ESC byte.
esc_ini="$work/"$'x\e[31mred.ini'
printf '[machine]\n[workload]\nthreads = 2\nmemory_gib = 0.0625\n' >"$esc_ini"
"$NUMASIM" run "$esc_ini" --duration 0.2 -q >"$work/esc.out" 2>&1 || fail "escape_in_path: the run failed"
! grep -q $'\e' "$work/esc.out" || fail "escape_in_path: a raw ESC reached the report"
grep -qF 'x\x1b[31mred.ini' "$work/esc.out" || fail "escape_in_path: the path is not shown escaped"

# ---- sweeps (issue 28): the scenario a sweep file names, and --emit paths -----------
# A sweep file may come from someone else: its 'scenario =' must not make
# numasim quote a file that is not a scenario (a password file, a token).
secret="$cases/token.txt"
printf 'TOPSECRET-TOKEN-1234 = yes\n[machine]\nsockets = 2 TOPSECRET\n' >"$secret"
sweep_with() { # sweep_with NAME SCENARIO: a sweep file naming SCENARIO
    printf '[sweep]\nscenario = %s\n[set]\nrun.duration_s = 0.1\n' "$2" >"$cases/$1.ini"
    echo "$cases/$1.ini"
}
nosecret() { ! grep -q -e TOPSECRET -e 'root:' "$work/err" || fail "$1: the file's text reached stderr: $(cat -v "$work/err")"; }
f=$(sweep_with sweep_token "$secret")
expect sweep_scenario_token "$f:2: scenario: $secret:1: not a scenario file" sweep "$f" -o "$run_dir/o"
nosecret sweep_scenario_token
f=$(sweep_with sweep_passwd /etc/passwd)
expect sweep_scenario_passwd "/etc/passwd:1: not a scenario file" sweep "$f" -o "$run_dir/o"
nosecret sweep_scenario_passwd
printf '[machine]\nsockets = 2\n[workload]\nthreads = 2\nTOPSECRET = 1\n' >"$cases/late.ini"
f=$(sweep_with sweep_late late.ini)
expect sweep_scenario_late_line "late.ini:5: not a scenario file" sweep "$f" -o "$run_dir/o"
nosecret sweep_scenario_late_line
printf '[machine] TOPSECRET\n[workload]\n' >"$cases/hdr.ini"
f=$(sweep_with sweep_header_junk hdr.ini)
expect sweep_scenario_header_junk "hdr.ini:1: not a scenario file" sweep "$f" -o "$run_dir/o"
nosecret sweep_scenario_header_junk
f=$(sweep_with sweep_dev_zero /dev/zero)
expect sweep_scenario_device "/dev/zero: is a device" sweep "$f" -o "$run_dir/o"
f=$(sweep_with sweep_fifo fifo.ini)
expect sweep_scenario_fifo "fifo.ini: is a FIFO" sweep "$f" -o "$run_dir/o"
f=$(sweep_with sweep_dir dir.ini)
expect sweep_scenario_dir "dir.ini: is a directory" sweep "$f" -o "$run_dir/o"
f=$(sweep_with sweep_huge huge.ini)
expect sweep_scenario_huge "more than the 1048576" sweep "$f" -o "$run_dir/o"
# a scenario file with a bad value is still one: the parser's usual message
printf '[machine]\n[workload]\nthreads = lots\n' >"$cases/badval.ini"
f=$(sweep_with sweep_bad_value badval.ini)
expect sweep_scenario_bad_value "badval.ini:3: workload.threads: 'lots' is not an integer" sweep "$f" -o "$run_dir/o"

# --emit: paths that reach the job script are refused before anything is
# created (no DIR, no DIR/manifest.json, no DIR/points)
f=$(sweep_with sweep_ok small)
for bad in 'a b' 'a$(touch PWNED)' 'a`touch PWNED`' "a'b" 'a"b' $'a\nb' 'a\b' 'a;b' 'a*'; do
    expect "emit_out_$(printf %q "$bad")" "--emit: the output directory" sweep "$f" --emit slurm -o "$run_dir/$bad"
    expect "emit_par_out_$(printf %q "$bad")" "--emit: the output directory" sweep "$f" --emit parallel -o "$run_dir/$bad"
done
cp "$f" "$cases/sp ace.ini"
expect emit_spec_space "--emit: the sweep file" sweep "$cases/sp ace.ini" --emit slurm -o "$run_dir/o"
expect emit_no_parent "the output directory: $run_dir/none/o: No such file" sweep "$f" --emit slurm -o "$run_dir/none/o"
f=$(sweep_with sweep_emit_bad_point small)
printf '[grid]\nworkload.memory_gib = 1, 100\n' >>"$f"
expect emit_bad_point "workload.memory_gib: needs 100 GiB" sweep "$f" --emit slurm -o "$run_dir/o"

# ---- times, node lists, keys that do nothing (issue 28) ------------------------------
# a period below 1 ns truncated to 0 and re-armed its timer at the instant it
# fired: the run never ended (madvise), or the key silently meant off
for kv in workload.madvise_dontneed_every_ms=1e-7 workload.madvise_cold_every_ms=1e-7 \
          workload.phase_every_s=1e-10 run.compact_memory_every_s=1e-12 workload.sleep_ms=4e-7; do
    expect "tiny_${kv%%=*}" "--set: ${kv%%=*}: ${kv#*=} is below the model's resolution of 1 ns" \
        run small --set "$kv" $J
done
expect tiny_migrate_every "--set: workload.migrate_every_s: 1e-12 is below the model's resolution" \
    run small --set workload.migrate_call=migrate_pages --set workload.migrate_every_s=1e-12 $J
f=$(small_with tiny_period_file 'cpu_ns_per_op *=' 'cpu_ns_per_op = 100\nmadvise_dontneed_every_ms = 1e-7')
expect tiny_period_file "$f:$(grep -n '^madvise' "$f" | cut -d: -f1): workload.madvise_dontneed_every_ms: 1e-7 is below" \
    run "$f" $J
# an operation that takes no time divided by zero: throughput -nan, exit 0
expect op_takes_no_time "--set: workload.cpu_ns_per_op: 0 is out of range" \
    run small --set workload.cpu_ns_per_op=0 $J
expect op_takes_no_time_tiny "--set: workload.cpu_ns_per_op: 1e-300 is out of range" \
    run small --set workload.cpu_ns_per_op=1e-300 --set costs.dram_local_ns=0 \
    --set machine.mem_bw_gbs=0 --set machine.link_bw_gbs=0 $J
f=$(small_with op_no_time_file 'cpu_ns_per_op *=' 'cpu_ns_per_op = 0')
expect op_no_time_file "$f:$(grep -n '^cpu_ns' "$f" | cut -d: -f1): workload.cpu_ns_per_op: 0 is out of range" run "$f" $J
# the bandwidth stretch grew to inf with no latency to stretch (-nan)
expect bw_no_latency "--set: costs.dram_local_ns: a bandwidth limit slows memory" \
    run small --set costs.dram_local_ns=0 $J
expect bw_no_latency_link "--set: machine.link_bw_gbs: a bandwidth limit slows memory by stretching its latency: dram_local_ns must be at least 1 ns while machine.mem_bw_gbs or machine.link_bw_gbs is above 0 (0: unlimited) (costs.dram_local_ns from --set" \
    run small --set costs.dram_local_ns=0 --set machine.mem_bw_gbs=0 --set machine.link_bw_gbs=1 $J
# a cost beyond 1 s per item carried the clock hours past the run's end
expect cost_huge "--set: costs.sched_rq_scan_ns: 1e12 is out of range" run small --set costs.sched_rq_scan_ns=1e12 $J
# touches sent to pages that do not exist (memory below a page crashed madvise)
expect memory_below_page "--set: workload.memory_gib: 1e-09 GiB is less than one 4 KiB page" \
    run small --set workload.memory_gib=1e-9 --set workload.madvise_cold_every_ms=10 $J
expect slices_no_page "--set: workload.private_fraction: private_fraction 1e-09 of 1 GiB gives 16 threads' slices no page" \
    run small --set workload.private_fraction=1e-9 $J
expect hot_no_page "--set: workload.hot_access_share: hot_fraction 1e-09 leaves the hot pages" \
    run small --set workload.hot_fraction=1e-9 --set workload.hot_access_share=1 $J
expect cold_no_page "leaves the cold pages" \
    run small --set workload.hot_fraction=0.9999999999 --set workload.hot_access_share=0 $J
# node lists: one strict grammar for every policy key
for v in 'bind:+0' 'bind: 0' 'bind:0 ,1' 'bind:0,' 'bind:,0' 'bind:1-0' 'bind:0x1' 'bind:64' \
         'interleave:0-+1' 'weighted:0=+1' 'weighted:0= 1' 'weighted:0=0' 'preferred:+1'; do
    for k in shared_first_touch private_first_touch; do
        expect "nodes_${k}_$(printf %q "$v")" "--set: workload.$k: '${v#*:}' is not a node list" \
            run small --set "workload.$k=$v" $J
    done
done
for v in 'bind:0,0' 'interleave:0-1,1' 'weighted:1=2,1=3'; do
    expect "nodes_twice_$v" "names node" run small --set "workload.private_first_touch=$v" $J
done
f=$(small_with nodes_twice_file 'private_first_touch *=' 'private_first_touch = bind:1,0-1')
expect nodes_twice_file "$f:$(grep -n '^private_first' "$f" | cut -d: -f1): workload.private_first_touch: '1,0-1' names node 1 twice" run "$f" $J
# keys that do nothing where they are given
expect migrate_key_no_call "--set: workload.migrate_to: there is no workload.migrate_call" \
    run small --set workload.migrate_to=0 $J
f=$(small_with migrate_key_no_call_file 'cpu_ns_per_op *=' 'cpu_ns_per_op = 100\nmigrate_at_s = 2')
expect migrate_key_no_call_file "$f:$(grep -n '^migrate_at' "$f" | cut -d: -f1): workload.migrate_at_s: there is no workload.migrate_call" run "$f" $J
expect arm64_key_on_x86 "--set: machine.arm64_tlbi_range: arm64_repeat_tlbi and arm64_tlbi_range describe arm64's TLBI instructions, but flush_engine is x86-ipi (machine.flush_engine from builtin:small:13" \
    run small --set machine.arm64_tlbi_range=true $J
expect arm64_key_engine_changed "--set: machine.flush_engine: arm64_repeat_tlbi" \
    run small-arm64 --set machine.arm64_repeat_tlbi=true --set machine.flush_engine=riscv $J
for kb in +64 ' 64' -64 0x40 99999999999999999999999; do
    expect "thp_key_$(printf %q "$kb")" "--set: transparent_hugepage.hugepages-${kb}kB.enabled: unknown key" \
        run small --set "transparent_hugepage.hugepages-${kb}kB.enabled=always" $J
done
# a file that is no scenario: its first line is not repeated (run /etc/shadow
# quoted "root", the key before the first ':')
expect run_passwd "/etc/passwd:1: not a scenario file" run /etc/passwd $J
nosecret run_passwd
printf 'TOPSECRET_TOKEN: abc\n[machine]\n' >"$cases/token.ini"
expect run_token "token.ini:1: not a scenario file" run "$cases/token.ini" $J
nosecret run_token
# verify sets the seed and the length itself: a --set of either was ignored
expect verify_set_seed "--set: verify runs seeds S .. S+N-1: use --seed S" verify small --set run.seed=5
expect verify_set_duration "--set: verify sets each run's length: use --duration S" \
    verify small --set run.duration_s=3

echo "hostile: $nr hostile inputs, each a clear error, exit 2, nothing written"
