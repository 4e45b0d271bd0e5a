#!/usr/bin/env bash
# numasim sweep through a real Slurm: a single-node cluster on localhost
# from Debian's packages (munged, slurmctld, slurmd; a generated
# slurm.conf, its own munge key, ports, spool and state in $TMPDIR), the
# sweep's --emit slurm array submitted with 'sbatch --wait', and its
# results compared byte for byte with a local run of the same sweep.  The
# daemons are this script's children: it stops them, by their pids, on any
# exit.  About 20 s on two cores.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm.XXXXXX")
fail() { echo "FAIL: $*" >&2; [[ -d $work/log ]] && tail -n 20 "$work"/log/* >&2; exit 1; }
for tool in munged slurmctld slurmd sbatch sinfo; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool not found: the Slurm test needs munge, slurmctld, slurmd and slurm-client (scripts/deps.sh --test installs them)"
done
cd "$work"
mkdir -p munge state spool log
chmod 700 munge

pids=()
stop() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop EXIT

# two ports nothing listens on
free_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 30000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    fail "no free port"
}
ctld_port=$(free_port)
d_port=$(free_port)
[[ $ctld_port != "$d_port" ]] || d_port=$((ctld_port + 1))

# munge, with a key of its own
head -c 1024 /dev/urandom >munge/key
chmod 400 munge/key
force=()
[[ $(id -u) -eq 0 ]] && force=(--force)
munged -F "${force[@]}" --socket="$work/munge/socket" --key-file="$work/munge/key" \
    --log-file="$work/log/munged.log" --pid-file="$work/munge/pid" --seed-file="$work/munge/seed" \
    >"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [[ -S $work/munge/socket ]] && break; sleep 0.1; done
[[ -S $work/munge/socket ]] || fail "munged did not start"

host=$(hostname -s)
user=$(id -un)
cat >slurm.conf <<EOF
ClusterName=numasim-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/state/slurmctld.pid
SlurmdPidFile=$work/spool/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
# schedule every second, not every few: the array's tasks are short
SchedulerParameters=batch_sched_delay=0,sched_interval=1
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
PlugStackConfig=$work/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweep Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
: >plugstack.conf
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 1 300); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [[ $state == idle ]] && break
    sleep 0.1
done
[[ $state == idle ]] || fail "the node is not idle after 30 s (sinfo: '$state')"

# ---- the sweep: 16 points, locally and as an array -----------------------------
cat >s.ini <<'EOF'
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
"$NUMASIM" sweep s.ini -o "$work/local" --jobs 2 -q || fail "the local sweep failed"
"$NUMASIM" sweep s.ini -o "$work/viaslurm" --emit slurm -q || fail "--emit slurm failed"
timeout 120 sbatch --wait -Q "$work/viaslurm/sweep.sbatch" || fail "the array job failed or timed out"
n=$(ls viaslurm/points | wc -l)
[[ $n -eq 16 ]] || fail "the array wrote $n results, not 16"
grep -l . viaslurm/slurm-*.out >/dev/null 2>&1 && fail "an array task printed something: $(cat viaslurm/slurm-*.out | head -5)"
diff -r local viaslurm -x sweep.sbatch -x collect.sbatch -x submit.sh -x 'slurm-*.out' >/dev/null ||
    fail "the results through Slurm differ from the local run's"
"$NUMASIM" sweep collect local -q && "$NUMASIM" sweep collect viaslurm -q || fail "collect failed"
cmp local/results.csv viaslurm/results.csv || fail "results.csv differs"

# resubmitted, the array runs nothing again (every point has its result)
for f in viaslurm/points/*.json; do stat -c '%i %Y' "$f"; done >before
timeout 120 sbatch --wait -Q "$work/viaslurm/sweep.sbatch" || fail "the resubmitted array failed"
for f in viaslurm/points/*.json; do stat -c '%i %Y' "$f"; done | cmp - before || fail "a resubmitted task rewrote a result"
# a '%' in the output directory reaches '#SBATCH --output=', where Slurm
# reads %x as the job's name and %% as a '%' (issue 28): the logs must land
# in the directory named, and the array must run
cat >p.ini <<'EOF'
[sweep]
scenario = small
seeds = 1..2
[set]
run.duration_s = 0.5
EOF
pct="$work/pct%x%%a%"
"$NUMASIM" sweep p.ini -o "$pct" --emit slurm -q || fail "--emit slurm into a directory with '%' failed"
grep -qF -- "--output=$work/pct%%x%%%%a%%/slurm-%A_%a.out" "$pct/sweep.sbatch" || fail "the '%' is not escaped for Slurm"
timeout 120 sbatch --wait -Q "$pct/sweep.sbatch" || fail "the array into a directory with '%' failed"
[[ $(ls "$pct/points" | wc -l) -eq 2 ]] || fail "the array into a directory with '%' wrote no results"
[[ $(ls "$pct" | grep -c '^slurm-.*\.out$') -eq 2 ]] || fail "the logs did not land in the directory with '%'"
ls -d "$work"/pct* | grep -v -F "$pct" && fail "Slurm made a directory of the pattern"

# the cluster's options (issue 31): #SBATCH lines passed through, an array
# throttle, several points a task, and the collect job after the array
"$NUMASIM" sweep s.ini -o "$work/opts" --emit slurm -q --points-per-task 5 --array-limit 2 \
    --slurm-opt=--time=00:05:00 --slurm-opt=--job-name=numasim-t || fail "--emit slurm with options failed"
grep -q '^#SBATCH --array=0-3%2$' opts/sweep.sbatch || fail "no array of 4 tasks, 2 at once"
grep -q '^#SBATCH --time=00:05:00$' opts/collect.sbatch || fail "the collect job lacks --time"
sbatch --test-only opts/sweep.sbatch >/dev/null 2>&1 || fail "sbatch --test-only refused the array"
sbatch --test-only opts/collect.sbatch >/dev/null 2>&1 || fail "sbatch --test-only refused the collect job"
sh opts/submit.sh >/dev/null || fail "submit.sh failed"
for _ in $(seq 1 120); do [[ -f opts/results.csv ]] && break; sleep 1; done
[[ -f opts/results.csv ]] || fail "the collect job did not run after the array"
[[ $(ls opts/points | wc -l) -eq 16 ]] || fail "4 tasks of 5 points wrote $(ls opts/points | wc -l) results"
cmp local/results.csv opts/results.csv || fail "the dependent collect's results.csv differs"

echo "slurm: 16 points through a single-node Slurm, identical to the local run; a '%' in DIR kept; options, 5 points a task and the collect job after the array"
