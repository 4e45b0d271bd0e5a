#!/usr/bin/env bash
# Issue 28: numaload puts back every kernel tunable it wrote, on every way
# out: the end of the run, a tunable it cannot read or write (then it
# writes nothing at all), SIGHUP and SIGTERM in the middle of the run; a
# SIGHUP ignored at start (nohup) stays ignored.  The real paths are used
# (/proc/sys/kernel/numa_balancing, /sys/kernel/debug/...), in a private
# mount namespace where scratch files are bind-mounted over them: the
# host's kernel is never written.  Needs root for unshare -m (CI is).
set -euo pipefail
: "${NUMASIM:?}" "${TMPDIR:?}"
NUMALOAD=${NUMALOAD:-$(dirname "$NUMASIM")/numaload}
[[ -x $NUMALOAD ]] || { echo "no numaload at $NUMALOAD"; exit 1; }

if [[ ${NUMALOAD_RESTORE_NS:-} != 1 ]]; then
    if ! unshare -m --propagation private true 2>/dev/null; then
        echo "SKIP: unshare -m is not permitted here (not root?): numaload's restore on the" \
             "real paths is untested; test_numaload covers it under a scratch directory"
        exit 0
    fi
    NUMALOAD_RESTORE_NS=1 NUMALOAD=$NUMALOAD exec unshare -m --propagation private bash "$0"
fi

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

NB=/proc/sys/kernel/numa_balancing
DBG=/sys/kernel/debug
SCAN=$DBG/sched/numa_balancing
CEIL=$DBG/x86/tlb_single_page_flush_ceiling
if [[ ! -e $NB || ! -d $DBG ]]; then
    echo "SKIP: this kernel has no $NB or no $DBG"
    exit 0
fi

# Scratch files over the real ones, in this namespace only.
fake=$TMPDIR/fake
mkdir -p "$fake"
mount -t tmpfs numaload-restore "$fake"
mkdir -p "$fake/debug/sched/numa_balancing" "$fake/debug/x86"
: >"$fake/numa_balancing"
mount --bind "$fake/numa_balancing" "$NB"
mount --bind "$fake/debug" "$DBG"
# a kernel before v5.13 has the scan tunables as sysctls: shadow them with
# empty (unreadable) files, so numaload writes only the scratch debugfs
for f in scan_delay_ms scan_period_min_ms scan_period_max_ms scan_size_mb; do
    if [[ -e /proc/sys/kernel/numa_balancing_$f ]]; then
        : >"$fake/old_$f"
        mount --bind "$fake/old_$f" "/proc/sys/kernel/numa_balancing_$f"
    fi
done
[[ $(stat -c %d:%i "$NB") == $(stat -c %d:%i "$fake/numa_balancing") ]] ||
    fail "the bind mount over $NB did not take: stopping before numaload writes the host's kernel"

# The kernel's defaults with balancing off, each file with an old mtime so
# that a write shows.
reset() {
    printf '0\n' >"$NB"
    printf '1000\n' >"$SCAN/scan_delay_ms"
    printf '1000\n' >"$SCAN/scan_period_min_ms"
    printf '60000\n' >"$SCAN/scan_period_max_ms"
    printf '256\n' >"$SCAN/scan_size_mb"
    printf '33\n' >"$CEIL"
    touch -d @1000000000 "$NB" "$SCAN"/* "$CEIL"
}

# expect FILE VALUE [untouched]
expect() {
    local v
    v=$(cat "$1")
    [[ $v == "$2" ]] || fail "$1 is '$v', expected '$2' ($case)"
    if [[ ${3:-} == untouched ]]; then
        [[ $(stat -c %Y "$1") == 1000000000 ]] || fail "$1 was written ($case)"
    fi
}

restored() {
    expect "$NB" 0
    expect "$SCAN/scan_delay_ms" 1000
    expect "$SCAN/scan_size_mb" 256
    expect "$CEIL" 33
    expect "$SCAN/scan_period_min_ms" 1000 untouched
    expect "$SCAN/scan_period_max_ms" 60000 untouched
}

scenario() {
    cat >"$TMPDIR/t.ini" <<EOF
[machine]

[tunables]
kernel.numa_balancing = 1
numa_balancing.scan_delay_ms = 500
numa_balancing.scan_size_mb = 64
x86.tlb_single_page_flush_ceiling = 64

[workload]
threads = 1
memory_gib = 0.0625
private_fraction = 0.5
cpu_ns_per_op = 50

[run]
duration_s = $1
EOF
}

# A whole run: written during it, back after it.
case="a whole run"
reset
scenario 2
"$NUMALOAD" "$TMPDIR/t.ini" --quiet --json "$TMPDIR/t.json" 2>"$TMPDIR/err" || { cat "$TMPDIR/err"; fail "$case: exit $?"; }
grep -q '"kernel.numa_balancing": 1' "$TMPDIR/t.json" || fail "$case: the run did not see its tunable"
grep -q '"numa_balancing.scan_size_mb": 64' "$TMPDIR/t.json" || fail "$case: scan_size_mb not written"
restored

# bad FILE-TEXT: exit 2 with it on stderr, nothing written, no output.
bad() {
    local rc=0
    rm -f "$TMPDIR/t.json"
    "$NUMALOAD" "$TMPDIR/t.ini" --quiet --json "$TMPDIR/t.json" 2>"$TMPDIR/err" || rc=$?
    [[ $rc -eq 2 ]] || { cat "$TMPDIR/err"; fail "$case: exit $rc, expected 2"; }
    grep -qF -- "$1" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "$case: expected '$1'"; }
    [[ ! -e $TMPDIR/t.json ]] || fail "$case: output written"
    expect "$NB" 0 untouched
    [[ ! -e $SCAN/scan_delay_ms ]] || expect "$SCAN/scan_delay_ms" 1000 untouched
    expect "$SCAN/scan_size_mb" 256 untouched
}

# The second tunable cannot be read (no debugfs file): once numa_balancing
# was written and left so.  Now nothing is written.
case="scan_delay_ms missing"
reset
rm "$SCAN/scan_delay_ms"
bad "$TMPDIR/t.ini:5: numa_balancing.scan_delay_ms: cannot read"

# The ceiling cannot be read (arm64 has none).
case="no x86 ceiling"
reset
rm "$CEIL"
bad "$TMPDIR/t.ini:7: x86.tlb_single_page_flush_ceiling: cannot read"
printf '33\n' >"$CEIL"

# One cannot be written (a read-only file): refused before any write.
case="scan_size_mb read-only"
reset
mount --bind "$SCAN/scan_size_mb" "$SCAN/scan_size_mb"
mount -o remount,bind,ro "$SCAN/scan_size_mb"
bad "$TMPDIR/t.ini:6: numa_balancing.scan_size_mb: cannot write"
umount "$SCAN/scan_size_mb"

# start: numaload in the background for a long run, once its tunables
# are written (pid in $pid).
start() {
    scenario 60
    "$NUMALOAD" "$TMPDIR/t.ini" --quiet --json "$TMPDIR/t.json" 2>"$TMPDIR/err" &
    pid=$!
    for _ in $(seq 300); do
        [[ $(cat "$NB") == 1 ]] && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$TMPDIR/err"; fail "$case: numaload ended before writing"; }
        sleep 0.1
    done
    kill -KILL "$pid"
    fail "$case: numa_balancing not written within 30 s"
}

# stopped SIGNAL: the run ends with status 130 and everything back.
stopped() {
    local rc=0
    wait "$pid" || rc=$?
    [[ $rc -eq 130 ]] || { cat "$TMPDIR/err"; fail "$case: exit $rc, expected 130"; }
    grep -q "interrupted" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "$case: no 'interrupted'"; }
    [[ ! -e $TMPDIR/t.json ]] || fail "$case: output written"
    restored
}

for sig in HUP TERM; do
    case="SIG$sig mid-run"
    reset
    rm -f "$TMPDIR/t.json"
    start
    expect "$SCAN/scan_size_mb" 64
    kill -"$sig" "$pid"
    stopped
done

# nohup: an ignored SIGHUP stays ignored, and the run goes on.
case="SIGHUP ignored"
reset
(trap '' HUP; start; kill -HUP "$pid"; sleep 1
 kill -0 "$pid" 2>/dev/null || fail "$case: an ignored SIGHUP ended the run"
 expect "$NB" 1
 kill -TERM "$pid"; stopped)
echo ok
