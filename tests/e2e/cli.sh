#!/usr/bin/env bash
# The command line: listings, help, and that a built-in scenario and its
# `numasim show` text give the same run.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/cli.XXXXXX")

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# JSON without the lines that name the scenario's origin.
strip_origin() {
    jq 'del(.scenario.name, .scenario.source)' "$1"
}

# --- listings and help ---------------------------------------------------
out=$("$NUMASIM" scenarios)
for s in seed small small-arm64 small-invlpgb; do
    grep -qE "^ *$s " <<<"$out" || fail "'numasim scenarios' does not list $s: $out"
done

out=$("$NUMASIM" kernels)
for k in v5.12 v5.15 v6.3 v6.4 v7.3 single-folio-v1 single-folio-v2 flush-side; do
    grep -qE "(^|[[:space:]])$k([[:space:]]|$)" <<<"$out" || fail "'numasim kernels' does not list $k"
done

# --names: the same names, one a line (shell completion reads them)
names=$("$NUMASIM" scenarios --names)
[[ $names == "$("$NUMASIM" scenarios | awk '{print $1}')" ]] ||
    fail "'scenarios --names' is not the first column of 'scenarios': $names"
names=$("$NUMASIM" kernels --names)
bases=$("$NUMASIM" kernels | sed -n '/^Bases:/,/^Patches/{/^  /s/^  \([^ ]*\).*/\1/p}')
patches=$("$NUMASIM" kernels | sed -n '/^Patches/,/^$/{/^  /s/^  \([^ ]*\).*/+\1/p}')
[[ $names == "$bases"$'\n'"$patches" ]] || fail "'kernels --names' is not the bases then +patches: $names"
grep -qx v7.3 <<<"$names" && grep -qx +single-folio-v2 <<<"$names" || fail "'kernels --names' lacks v7.3 or +single-folio-v2"
for c in scenarios kernels; do
    rc=0; "$NUMASIM" $c --names extra 2>"$work/names.err" >/dev/null || rc=$?
    [[ $rc -eq 2 ]] && grep -q "^numasim $c: takes no arguments" "$work/names.err" ||
        fail "'$c --names extra': exit $rc, $(cat "$work/names.err")"
done

"$NUMASIM" --help | grep -q 'run' || fail "--help does not mention run"
"$NUMASIM" help run | grep -q -- '--set' || fail "'help run' does not describe --set"
"$NUMASIM" run --help | grep -q -- '--json' || fail "'run --help' does not describe --json"
"$NUMASIM" --version | grep -qE '^numasim [0-9]' || fail "--version"
rc=0
"$NUMASIM" frobnicate >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "unknown command: exit status $rc, expected 2"
rc=0
"$NUMASIM" run small --no-such-option >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "unknown option: exit status $rc, expected 2"
echo "ok: listings and help"

# --- show small round-trips ----------------------------------------------
"$NUMASIM" show small >"$work/f.ini"
"$NUMASIM" run small --duration 2 --quiet --json "$work/a.json" >"$work/a.txt" 2>"$work/a.err" ||
    fail "run small: $(cat "$work/a.err")"
"$NUMASIM" run "$work/f.ini" --duration 2 --quiet --json "$work/b.json" >"$work/b.txt" 2>"$work/b.err" ||
    fail "run f.ini: $(cat "$work/b.err")"
[[ -s $work/a.json && ! -e $work/a.json.tmp ]] || fail "a.json missing or a temporary file left"
diff <(strip_origin "$work/a.json") <(strip_origin "$work/b.json") >"$work/ab.diff" ||
    fail "show small | run differs from run small: $(cat "$work/ab.diff")"
[[ $(jq -r .scenario.name "$work/b.json") == f ]] || fail "a file's scenario name is its basename"
grep -q '^/proc/vmstat' "$work/a.txt" || fail "text report lacks /proc/vmstat"
grep -qE '^TLB: [0-9]+ TLB shootdowns$' "$work/a.txt" || fail "text report lacks the TLB line"
[[ ! -s $work/a.err ]] || fail "--quiet run printed on stderr: $(cat "$work/a.err")"
"$NUMASIM" run small --duration 0.5 >/dev/null 2>"$work/w.err" || fail "run small: $(cat "$work/w.err")"
grep -qx 'wall time: [0-9.]* s' "$work/w.err" || fail "no wall time line on stderr: $(cat "$work/w.err")"
echo "ok: show small round-trips"

# --- the same run twice gives the same JSON --------------------------------
"$NUMASIM" run small --duration 2 --quiet --json "$work/c.json" >/dev/null 2>&1
cmp -s "$work/a.json" "$work/c.json" || fail "two runs of small differ"
echo "ok: deterministic"

# --- show seed parses and round-trips (shrunk by --set: the seed is too big
#     for a test) ------------------------------------------------------------
"$NUMASIM" show seed >"$work/seed.ini"
shrink=(--set machine.cores_per_node=4 --set machine.cpus=16 --set machine.mem_per_node_gib=4
        --set workload.threads=16 --set workload.memory_gib=1 --duration 0.5 --quiet)
"$NUMASIM" run seed "${shrink[@]}" --json "$work/s1.json" >/dev/null 2>"$work/s1.err" ||
    fail "run seed (shrunk): $(cat "$work/s1.err")"
"$NUMASIM" run "$work/seed.ini" "${shrink[@]}" --json "$work/s2.json" >/dev/null 2>"$work/s2.err" ||
    fail "run seed.ini (shrunk): $(cat "$work/s2.err")"
diff <(strip_origin "$work/s1.json") <(strip_origin "$work/s2.json") >/dev/null ||
    fail "show seed | run differs from run seed"
echo "ok: show seed round-trips"

# --- ab's progress line on a terminal (script(1) gives it one), not with -q --
if command -v script >/dev/null 2>&1; then
    script -qc "'$NUMASIM' ab small --kernels v7.3 --pairs 2 --duration 1" /dev/null >"$work/tty.out" </dev/null
    grep -aq 'ab: 4 / 4 runs done' "$work/tty.out" || fail "no ab progress line on a terminal: $(cat -v "$work/tty.out" | head -3)"
    script -qc "'$NUMASIM' ab small --kernels v7.3 --pairs 2 --duration 1 -q" /dev/null >"$work/tty.out" </dev/null
    ! grep -aq -e 'runs done' -e '^wall time: ' "$work/tty.out" || fail "ab -q printed progress or wall time"
    "$NUMASIM" ab small --kernels v7.3 --pairs 1 --duration 1 >/dev/null 2>"$work/ab.err"
    ! grep -q 'runs done' "$work/ab.err" || fail "ab printed a progress line to a file"
    echo "ok: progress lines"
fi

# ---- did you mean: scenario, kernel, patch, key, command (exit 2) ----------
dym() { # expected-text args...
    local want=$1 rc=0; shift
    "$NUMASIM" "$@" > /dev/null 2> "$work/dym.err" || rc=$?
    [ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2"
    grep -qF -- "$want" "$work/dym.err" || fail "$*: no '$want' in: $(cat "$work/dym.err")"
}
dym "numasim run: smal: no such scenario file or built-in scenario; did you mean 'small'?" run smal
dym "unknown kernel base 'v7.33'; did you mean 'v7.3'?" run small --kernel v7.33
dym "a patch goes after a base: did you mean 'v7.3+single-folio-v2'?" run small --kernel single-folio-v2
dym "unknown patch 'single-folio-v3'; did you mean 'single-folio-v2'?" run small --kernel v7.3+single-folio-v3
dym "numa_balancing.scan_sizemb: unknown key; did you mean 'numa_balancing.scan_size_mb'?" \
    run small --set numa_balancing.scan_sizemb=64
dym "workload.thread: unknown key; did you mean 'workload.threads'?" ab small --kernels v7.3 --set workload.thread=4
dym "numasim: unknown command 'rn'; did you mean 'run'?" rn small
printf '[workload]\nthredas = 4\n' > "$work/typo.ini"
dym "typo.ini:2: workload.thredas: unknown key; did you mean 'threads'?" run "$work/typo.ini"
# no key near: the section's keys, whole names, the rest counted
printf '[workload]\nzzzzzzzz = 4\n' > "$work/far.ini"
dym "'numasim show seed' shows them)" run "$work/far.ini"
grep -qE ', and [0-9]+ more;' "$work/dym.err" || fail "the keys left out are not counted: $(cat "$work/dym.err")"
grep -q 'migrate_from, migrate_to,' "$work/dym.err" || fail "the key list is cut: $(cat "$work/dym.err")"
dym "numasim: unknown command 'xyzzy'" xyzzy
grep -q "did you mean" "$work/dym.err" && fail "a suggestion for xyzzy: $(cat "$work/dym.err")"
echo "ok: did you mean"

# ---- --json -: the JSON on standard output, instead of the report ----------
( cd "$work" && "$NUMASIM" run small --duration 1 -q --json - > run-stdout.json ) || fail "run --json - failed"
jq -e '.kernel == "v7.3" and (.numasim_build | length > 0)' "$work/run-stdout.json" > /dev/null ||
    fail "run --json -: not the JSON: $(head -c 200 "$work/run-stdout.json")"
( cd "$work" && "$NUMASIM" ab small --kernels v7.3 --pairs 1 --duration 3 -q --json - > ab-stdout.json ) ||
    fail "ab --json - failed"
jq -e '.kernels["v7.3"]' "$work/ab-stdout.json" > /dev/null || fail "ab --json -: not the JSON"
[ ! -e "$work/-" ] || fail "--json - wrote a file named '-'"
echo "ok: --json -"

echo "cli: all cases passed"
