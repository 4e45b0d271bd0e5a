#!/usr/bin/env bash
# numasim sweep: a small sweep's points and manifest; byte-identical results
# at --jobs 1 and 2, through --point, and through the emitted Slurm script
# and GNU parallel job list (run here by sh, task by task); a point equals
# 'numasim run' of its scenario; resume after a killed sweep (nothing that
# finished is lost or run again); collect into CSV; bad sweep files (exit 2,
# nothing written) and tampered results.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/sweep.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

cat >s.ini <<'EOF'
# 2 kernels x 2 scan sizes x 2 seeds, balancing on and off: 16 points
[sweep]
scenario = small
kernels = v7.3, v7.3+single-folio-v2
seeds = 1..2
balancing = both
[set]
run.duration_s = 1.5
[grid]
numa_balancing.scan_size_mb = 64, 256
EOF

# ---- a sweep, at two --jobs -------------------------------------------------
"$NUMASIM" sweep s.ini --jobs 1 -q || fail "sweep --jobs 1 failed"
[[ -f s.sweep/manifest.json ]] || fail "no manifest at the default directory"
n=$(jq '.points | length' s.sweep/manifest.json)
[[ $n -eq 16 ]] || fail "expected 16 points, the manifest has $n"
[[ $(ls s.sweep/points | wc -l) -eq 16 ]] || fail "expected 16 results"
"$NUMASIM" sweep s.ini --jobs 2 -o j2 -q || fail "sweep --jobs 2 failed"
diff -r s.sweep j2 >/dev/null || fail "--jobs 2 gives other bytes than --jobs 1"
ls -A s.sweep/points | grep -q '^\.' && fail "a temporary was left in points/"

# the manifest's order: kernels, grid, seeds, on before off
[[ $(jq -r '.points[1] | "\(.kernel) \(.grid["numa_balancing.scan_size_mb"]) \(.seed) \(.balancing)"' \
    s.sweep/manifest.json) == "v7.3 64 1 off" ]] || fail "point 1 is not v7.3, 64, seed 1, off"
[[ $(jq -r '.points[15] | "\(.kernel) \(.grid["numa_balancing.scan_size_mb"]) \(.seed) \(.balancing)"' \
    s.sweep/manifest.json) == "v7.3+single-folio-v2 256 2 off" ]] || fail "point 15 is not the last"

# a point is the run of its scenario: only how it was asked for differs
id=$(jq -r '.points[2].id' s.sweep/manifest.json)
[[ $(jq -r .sweep_id "s.sweep/points/$id.json") == "$id" ]] || fail "the result does not record its id"
"$NUMASIM" run small --duration 1.5 --seed 2 --set numa_balancing.scan_size_mb=64 -q --json run.json >/dev/null
strip='del(.sweep_id, .scenario.overrides)'
cmp <(jq -S "$strip" "s.sweep/points/$id.json") <(jq -S "$strip" run.json) ||
    fail "point 2 differs from 'numasim run' of its scenario"

# ---- --point K, and the emitted job lists, give the same bytes ---------------
"$NUMASIM" sweep s.ini --point 5 -o one -q || fail "--point 5 failed"
[[ $(ls one/points | wc -l) -eq 1 ]] || fail "--point ran more than one point"
id5=$(jq -r '.points[5].id' s.sweep/manifest.json)
cmp one/points/$id5.json s.sweep/points/$id5.json || fail "--point 5 differs from the sweep's"
cmp one/manifest.json s.sweep/manifest.json || fail "--point wrote another manifest"
"$NUMASIM" sweep s.ini --point 16 -o one -q 2>err && fail "--point 16 of 16 accepted"
grep -q 'points 0..15' err || fail "--point out of range: no message"

"$NUMASIM" sweep s.ini --emit slurm -o sl -q || fail "--emit slurm failed"
[[ $(ls sl/points | wc -l) -eq 0 ]] || fail "--emit ran points"
grep -q '^#SBATCH --array=0-15$' sl/sweep.sbatch || fail "no array of 16 tasks"
grep -q -- '--point "$p"' sl/sweep.sbatch || fail "the task does not run its points"
[[ -f sl/collect.sbatch && -f sl/submit.sh ]] || fail "no collect job or submit script"
for k in $(seq 0 15); do SLURM_ARRAY_TASK_ID=$k sh sl/sweep.sbatch || fail "array task $k failed"; done
diff -r s.sweep sl -x sweep.sbatch -x collect.sbatch -x submit.sh >/dev/null ||
    fail "the array tasks give other bytes than a local run"
# several points a task: 16 points in 6 tasks of 3 (the last has 1)
"$NUMASIM" sweep s.ini --emit slurm -o sl3 -q --points-per-task 3 || fail "--points-per-task 3 failed"
grep -q '^#SBATCH --array=0-5$' sl3/sweep.sbatch || fail "not 6 tasks of 3 points"
for k in $(seq 0 5); do SLURM_ARRAY_TASK_ID=$k sh sl3/sweep.sbatch || fail "3-point task $k failed"; done
diff -r s.sweep sl3 -x sweep.sbatch -x collect.sbatch -x submit.sh >/dev/null ||
    fail "3-point tasks give other bytes than a local run"
"$NUMASIM" sweep s.ini --emit slurm -o sl4 -q --slurm-opt '--time=1:00; rm -rf /' 2>err &&
    fail "a --slurm-opt with a space and a ';' was accepted"
grep -q 'is not --NAME or --NAME=VALUE' err || fail "bad --slurm-opt: $(cat err)"
"$NUMASIM" sweep s.ini -o sl5 -q --array-limit 2 2>err && fail "--array-limit without --emit slurm accepted"
[[ -e sl4 || -e sl5 ]] && fail "a refused option wrote a directory"

# the expansion is cached in the manifest (issue 28): an array task reads its
# point's id there, and neither expands the sweep nor rewrites the manifest
[[ $(jq -r '.expansion.points' sl/manifest.json) -eq 16 ]] || fail "the manifest has no expansion"
[[ $(jq -r '.expansion.ids' sl/manifest.json) == "$(jq -j '.points[].id' sl/manifest.json)" ]] ||
    fail "the cached ids are not the points' ids"
jq -e '.expansion.key | test("^[0-9a-f]{16}:(gnu|exe):[0-9a-f]+$")' sl/manifest.json >/dev/null ||
    fail "the cache's key is not the sweep's hash and the build's id"
cp -r sl cache && rm -rf cache/points/* && before=$(stat -c '%i %Y' cache/manifest.json)
sleep 1.1  # a rewrite would show in the mtime
"$NUMASIM" sweep s.ini -o cache --point 9 -q || fail "--point 9 from the cache failed"
[[ $(stat -c '%i %Y' cache/manifest.json) == "$before" ]] || fail "--point rewrote a manifest whose cache was good"
cmp cache/points/$(jq -r '.points[9].id' s.sweep/manifest.json).json \
    s.sweep/points/$(jq -r '.points[9].id' s.sweep/manifest.json).json || fail "point 9 from the cache differs"
# a cache that is not this sweep's (another sweep file, a damaged id) is not used
cp s.ini s2.ini && echo '# another file, the same points' >>s2.ini
"$NUMASIM" sweep s2.ini -o cache --point 3 -q || fail "--point with a stale cache failed"
[[ $(stat -c '%i %Y' cache/manifest.json) != "$before" ]] || fail "a stale cache was used"
key2=$(jq -r .expansion.key cache/manifest.json)
[[ $key2 != "$(jq -r .expansion.key sl/manifest.json)" ]] || fail "another sweep file has the same key"
cmp <(jq .points cache/manifest.json) <(jq .points sl/manifest.json) || fail "the same points have other ids"
sed -i "s/\"ids\": \"$(jq -r '.points[0].id' s.sweep/manifest.json)/\"ids\": \"0000000000000000/" cache/manifest.json
"$NUMASIM" sweep s2.ini -o cache --point 0 -q || fail "--point with a damaged cache failed"
[[ -f cache/points/$(jq -r '.points[0].id' s.sweep/manifest.json).json ]] || fail "a damaged cached id was used"
[[ ! -e cache/points/0000000000000000.json ]] || fail "a damaged cached id named a result"

"$NUMASIM" sweep s.ini --emit parallel -o par -q || fail "--emit parallel failed"
[[ $(wc -l <par/sweep.jobs) -eq 16 ]] || fail "the job list does not have 16 lines"
sh par/sweep.jobs || fail "the job list's commands failed"
diff -r s.sweep par -x sweep.jobs >/dev/null || fail "the job list gives other bytes than a local run"

# ---- resume after a kill ---------------------------------------------------
cat >long.ini <<'EOF'
[sweep]
scenario = small
seeds = 1..6
[set]
run.duration_s = 3
EOF
"$NUMASIM" sweep long.ini -o ref --jobs 2 -q || fail "the reference sweep failed"
"$NUMASIM" sweep long.ini -o killed --jobs 1 -q &
pid=$!
for _ in $(seq 1 600); do
    [[ $(ls killed/points 2>/dev/null | grep -c '^[0-9a-f]*\.json$') -ge 2 ]] && break
    sleep 0.05
done
kill -9 "$pid" 2>/dev/null || true
{ wait "$pid"; } 2>/dev/null || true
before=$(ls killed/points | grep -c '^[0-9a-f]*\.json$' || true)
[[ $before -ge 1 && $before -lt 6 ]] || fail "the kill came at a bad time ($before of 6 done): cannot test resume"
for f in killed/points/*.json; do stat -c '%i %Y %n' "$f"; done >inodes.before
"$NUMASIM" sweep long.ini -o killed --jobs 2 2>resume.err || fail "the resumed sweep failed"
grep -q "$((6 - before)) points\? run, $before already done" resume.err ||
    { cat resume.err >&2; fail "resume did not skip the $before finished points"; }
for f in killed/points/*.json; do stat -c '%i %Y %n' "$f"; done | grep -F -f inodes.before | cmp - inodes.before ||
    fail "a finished point was written again"
find killed/points -name '.*' -delete  # the temporaries a SIGKILL leaves
diff -r ref killed >/dev/null || fail "the resumed sweep differs from an uninterrupted one"

# an interrupted sweep (SIGTERM here: a background job ignores SIGINT) says
# what finished and the command that resumes, and ends as the signal would
"$NUMASIM" sweep long.ini -o termed --jobs 1 -q 2>term.err &
pid=$!
for _ in $(seq 1 600); do
    [[ $(ls termed/points 2>/dev/null | grep -c '^[0-9a-f]*\.json$') -ge 1 ]] && break
    sleep 0.05
done
kill -TERM "$pid" 2>/dev/null || true
rc=0
wait "$pid" 2>/dev/null || rc=$?
[[ $rc -eq 143 ]] || fail "a sweep ended by SIGTERM exited $rc, not 143"
grep -qE '^numasim sweep: interrupted: [0-9]+ of 6 points to run finished, their results kept; resume with: numasim sweep long.ini -o termed$' \
    term.err || fail "no resume message: $(cat term.err)"
ls -A termed/points | grep -q '^\.' && fail "the interrupted sweep left a temporary"
"$NUMASIM" sweep long.ini -o termed --jobs 2 -q || fail "the resume command failed"
diff -r ref termed >/dev/null || fail "the resumed sweep differs from an uninterrupted one"

# a damaged result is run again, not trusted
id0=$(jq -r '.points[0].id' ref/manifest.json)
jq '.sweep_id = "0000000000000000"' ref/points/$id0.json >x && mv x killed/points/$id0.json
"$NUMASIM" sweep long.ini -o killed 2>r2.err || fail "resume over a damaged result failed"
grep -q '1 point run, 5 already done' r2.err || fail "a result with another id was trusted"
cmp ref/points/$id0.json killed/points/$id0.json || fail "the rerun point differs"

# ---- collect ---------------------------------------------------------------
"$NUMASIM" sweep collect s.sweep 2>c.err || fail "collect failed"
grep -q 'collected 16 points' c.err || fail "collect did not count 16 points"
[[ $(wc -l <s.sweep/results.csv) -eq 17 ]] || fail "results.csv is not a header and 16 rows"
head -1 s.sweep/results.csv | grep -q '^index,id,kernel,seed,balancing,numa_balancing.scan_size_mb,' ||
    fail "results.csv has no grid column"
grep -q "^1,[0-9a-f]*,v7.3,1,off,64,1.5," s.sweep/results.csv || fail "row 1 is not v7.3 seed 1 off 64"
"$NUMASIM" sweep collect one 2>c1.err || fail "collect of a partial sweep failed"
[[ -f s.sweep/compare.txt ]] || fail "collect wrote no compare.txt"
grep -q 'collected 1 point .*15 points without a result' c1.err || fail "collect did not count the missing points"
[[ $(wc -l <one/results.csv) -eq 2 ]] || fail "partial results.csv is not a header and a row"
# collect refuses results that are not the point's, and a manifest that is not one
cp -r s.sweep bad && rm bad/results.csv
cp bad/points/$id5.json bad/points/$id.json
"$NUMASIM" sweep collect bad 2>b.err && fail "collect accepted a result under another id"
grep -q "not the result of point" b.err || fail "no message for a result under another id"
[[ -e bad/results.csv ]] && fail "collect wrote results.csv from bad input"
jq '.points[0].id = "../../../etc/passwd"' s.sweep/manifest.json >bad/manifest.json
"$NUMASIM" sweep collect bad 2>b.err && fail "collect accepted a manifest with a path as an id"
grep -q "point 0 has no id" b.err || fail "no message for a bad id"
printf '{"points": [], "grid": [{"key": "\\u001b[2J"}]}' >bad/manifest.json
"$NUMASIM" sweep collect bad 2>b.err && fail "collect accepted a grid key that is no key"
grep -q $'\x1b' b.err && fail "an escape from the manifest reached the terminal"

# ---- compare on the directory: per grid value and balancing, kernels as
# columns, seeds as samples ---------------------------------------------------
"$NUMASIM" compare s.sweep >cmp.out || fail "compare on a sweep's directory failed"
cmp cmp.out s.sweep/compare.txt || fail "collect's compare.txt is not 'numasim compare DIR'"
[[ $(grep -c '^numasim compare: s.sweep (small), ' cmp.out) -eq 4 ]] || fail "expected 4 tables (2 sizes x on/off)"
grep -q '^numasim compare: s.sweep (small), numa_balancing.scan_size_mb=256, balancing off; samples: one per seed (2;' cmp.out ||
    fail "no table for size 256, balancing off, 2 seeds"
grep -Eq '^ +v7.3 +v7.3\+single-folio-v2$' cmp.out || fail "the kernels are not the columns"
for row in 'Gmean     tlb-irqs/s' 'Duration User' 'Duration System' 'Duration Elapsed' 'Ops TLB shootdowns'; do
    grep -q "^$row" cmp.out || fail "no '$row' row"
done
# a sample is a run's mean over its seconds after the first: v7.3, size 64,
# balancing on, seeds 1 and 2, by hand
want=$(for s in 1 2; do
    i=$(jq -r --argjson s $s '.points[] | select(.kernel == "v7.3" and .seed == $s and .balancing == "on"
        and .grid["numa_balancing.scan_size_mb"] == "64") | .id' s.sweep/manifest.json)
    jq '.timeseries.tlb_irqs_per_s[1:] | add / length' "s.sweep/points/$i.json"
done | awk '{ s += $1 } END { printf "%.2f", s / NR }')
got=$(awk '/^numasim compare/ { t++ } t == 1 && /^Amean +tlb-irqs\/s/ { print $3; exit }' cmp.out)
[[ $got == "$want" ]] || fail "Amean tlb-irqs/s of v7.3 at size 64 is $got, by hand $want"
"$NUMASIM" compare one >one.out 2>one.err || fail "compare on a partial sweep failed"
grep -q '15 of 16 points have no result yet' one.err || fail "compare did not say points are missing"
# two directories (tests/e2e/compare.sh has the rest): identical sweeps, no marker
"$NUMASIM" compare s.sweep j2 >dirs.out || fail "compare of two sweep directories failed"
grep -Eq '^[AH]mean .*%\*$' dirs.out && fail "a significance marker between identical sweeps"
[[ $(grep -c ': 2 vs 2 seeds$' dirs.out) -eq 8 ]] || fail "not 8 points of 2 seeds a side"
mkdir empty && cp s.sweep/manifest.json empty/
"$NUMASIM" compare empty 2>/dev/null && fail "compare accepted a sweep without results"

# ---- bad sweep files: FILE:LINE: key, exit 2, nothing written -----------------
bad() { # bad NAME EXPECTED-MESSAGE-PREFIX TEXT
    printf '%b' "$3" >"$1.ini"
    local rc=0
    "$NUMASIM" sweep "$1.ini" -o "out-$1" 2>"$1.err" || rc=$?
    [[ $rc -eq 2 ]] || fail "$1: exit $rc, expected 2"
    grep -qF "$2" "$1.err" || { cat "$1.err" >&2; fail "$1: expected '$2'"; }
    [[ -e out-$1 ]] && fail "$1: wrote out-$1"
    return 0
}
bad unknown "unknown.ini:3: scenarios: unknown key" '[sweep]\nscenario = small\nscenarios = 2\n'
bad twice "twice.ini:5: workload.threads: given twice (first at line 4)" \
    '[sweep]\nscenario = small\n[grid]\nworkload.threads = 4\nworkload.threads = 8\n'
bad value "value.ini:4: numa_balancing.scan_size_mb:" \
    '[sweep]\nscenario = small\n[grid]\nnuma_balancing.scan_size_mb = 64, lots\n'
bad point "point.ini:4: workload.memory_gib: needs 100 GiB" \
    '[sweep]\nscenario = small\n[grid]\nworkload.memory_gib = 1, 100\n'
bad kernel "kernel.ini:3: kernels:" '[sweep]\nscenario = small\nkernels = v7.3, v0.1\n'
bad noscen "noscen.ini: no 'scenario' in [sweep]" '[sweep]\nseeds = 1\n'
bad same "points 0 and 1 are the same scenario" \
    '[sweep]\nscenario = small\n[grid]\nworkload.cpu_ns_per_op = 100, 100.0\n'
bad same_apart "same_apart.ini: points 0 and 3 are the same scenario" \
    '[sweep]\nscenario = small\nseeds = 1..3\n[grid]\nworkload.cpu_ns_per_op = 100, 1e2\n'
"$NUMASIM" sweep s.ini --jobs 0 -o x 2>/dev/null && fail "--jobs 0 accepted"
"$NUMASIM" sweep s.ini --emit mail -o x 2>/dev/null && fail "--emit mail accepted"
"$NUMASIM" sweep nothere.ini 2>/dev/null && fail "a missing sweep file accepted"
[[ -e x ]] && fail "bad options wrote a directory"
# ---- results of another build: stale, not mixed ----------------------------
# (the issue: a sweep resumed with a newer binary ran nothing and kept the
# old model's numbers)  Point 4's result is marked as another build's.
cp -r s.sweep stale
sid=$(jq -r '.points[4].id' stale/manifest.json)
jq -c '.numasim_build = "0123456789ab-older"' "stale/points/$sid.json" > t.json && mv t.json "stale/points/$sid.json"
before=$(md5sum "stale/points/$sid.json")
rc=0
"$NUMASIM" sweep s.ini -o stale -q 2>err || rc=$?
[[ $rc -eq 2 ]] || fail "a stale point: exit $rc, expected 2"
grep -q '1 point was made by another build of numasim (0123456789ab-older; this is ' err ||
    fail "stale: $(cat err)"
grep -q -- '--rerun-stale' err || fail "stale: the message does not say how to run it again"
[[ $(md5sum "stale/points/$sid.json") == "$before" ]] || fail "the stale result was touched"
"$NUMASIM" sweep s.ini -o stale --list | grep -q "^    4 $sid stale " || fail "--list does not show point 4 stale"
"$NUMASIM" sweep s.ini -o stale -q --rerun-stale || fail "--rerun-stale failed"
cmp "stale/points/$sid.json" "s.sweep/points/$sid.json" || fail "--rerun-stale did not make this build's result"
[[ $(jq -r .numasim_build "stale/points/$sid.json") == $("$NUMASIM" --version | sed 's/.*(build \(.*\))/\1/') ]] ||
    fail "the result's build is not --version's"
echo "sweep: ok"
