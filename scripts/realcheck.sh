#!/usr/bin/env bash
# numasim beside real kernels: boot Debian's 6.1 and 6.12 kernels under qemu
# (TCG, two NUMA nodes), run numaload on a scenario in the guest, run numasim
# on the same scenario with the matching base, and print the two side by
# side.  See docs/realcheck.md.
#
# Usage: scripts/realcheck.sh [--kernels 6.1,6.12] [--scenario FILE]
#                             [--duration S] [--out DIR] [--smoke]
#   --kernels    Debian kernel series to boot (default 6.1,6.12)
#   --scenario   the scenario (default scripts/realcheck/loop.ini)
#   --duration   override run.duration_s (default: the scenario's, 30 s)
#   --out        where the JSON, guest logs and the table go
#                (default build/realcheck)
#   --smoke      one kernel (6.12), 8 s, and a pass/fail verdict: the CI check
# Run from the repository root after 'make' (make realcheck does both).
# Kernel packages are cached in ${NUMASIM_REALCHECK_CACHE:-~/.cache/numasim-realcheck}.
set -euo pipefail

kernels=6.1,6.12
scenario=scripts/realcheck/loop.ini
duration=
out=build/realcheck
smoke=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --kernels) kernels=$2; shift 2 ;;
        --scenario) scenario=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --smoke) kernels=6.12; duration=8; smoke=1; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "realcheck: unknown argument: $1" >&2; exit 2 ;;
    esac
done
[[ -f $scenario ]] || { echo "realcheck: $scenario: no such scenario file" >&2; exit 2; }
if [[ -n $duration && ! $duration =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "realcheck: --duration: '$duration' is not a number of seconds" >&2
    exit 2
fi

scripts/deps.sh --realcheck

NUMASIM=build/release/numasim
NUMALOAD=build/release/numaload
NUMALOAD_STATIC=build/release/numaload-static
for b in "$NUMASIM" "$NUMALOAD" "$NUMALOAD_STATIC"; do
    [[ -x $b ]] || { echo "realcheck: $b missing: run 'make' first" >&2; exit 1; }
done

cache=${NUMASIM_REALCHECK_CACHE:-$HOME/.cache/numasim-realcheck}
mkdir -p "$cache" "$out"
rm -f "$out/boot-failures.txt" "$out"/console-*.boot*.log # this run's only
work=$(mktemp -d "${TMPDIR:-/tmp}/realcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- the kernels ---------------------------------------------------------------

# The newest Debian package of a series: linux-image-6.1.0-N-amd64-unsigned,
# linux-image-6.12.N+debM-amd64-unsigned.
package_of() {
    local series=$1 re
    case "$series" in
        6.1) re='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
        *)   re="^linux-image-${series//./\\.}\\.[0-9]+\\+deb[0-9]+-amd64-unsigned\$" ;;
    esac
    apt-cache search --names-only "$re" | awk '{print $1}' | grep -E "$re" | sort -V | tail -n 1
}

apt_updated=0
# apt-get download, tried three times: a fresh machine's first download
# meets a mirror in the middle of an update now and then (a package the
# lists name but the pool no longer has), which a new apt-get update mends.
download_deb() {
    local pkg=$1 dir=$2 try
    for try in 1 2 3; do
        (cd "$dir/deb" && apt-get download "$pkg" >/dev/null 2>"$dir/download.log") && return 0
        echo "realcheck: download of $pkg failed (try $try of 3):" >&2
        cat "$dir/download.log" >&2
        rm -f "$dir"/deb/*.deb
        [[ $try -lt 3 ]] || return 1
        sleep $((try * 5))
        apt-get update >/dev/null 2>&1 || true
    done
}

fetch_kernel() {
    local series=$1 pkg dir deb
    pkg=$(package_of "$series")
    if [[ -z $pkg && $apt_updated -eq 0 ]]; then
        apt-get update >/dev/null
        apt_updated=1
        pkg=$(package_of "$series")
    fi
    [[ -n $pkg ]] || { echo "realcheck: no Debian kernel package for $series (apt-cache)" >&2; return 1; }
    dir=$cache/$pkg
    if [[ ! -f $dir/done ]]; then
        echo "realcheck: downloading $pkg" >&2
        rm -rf "$dir" && mkdir -p "$dir/deb" "$dir/root"
        download_deb "$pkg" "$dir" || return 1
        deb=$(ls "$dir"/deb/*.deb)
        # only ./boot (the kernel and its config): the modules are not
        # used, and on a small disk they are most of the package
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/root" ./boot ||
            { echo "realcheck: cannot unpack $deb" >&2; return 1; }
        rm -f "$deb"
        touch "$dir/done"
    fi
    echo "$dir"
}

# ---- the guest ---------------------------------------------------------------------

# An initramfs: busybox, the static numaload, the scenario, the kernel's
# config (numaload checks machine.hz against CONFIG_HZ).  No modules: the
# serial ports, tracefs and debugfs are built into Debian's kernels.
make_initramfs() {
    local kdir=$1 release=$2 img=$3 root=$work/initramfs
    rm -rf "$root"
    mkdir -p "$root"/{bin,proc,sys,dev,tmp,boot,out}
    cp /bin/busybox "$root/bin/busybox"
    cp "$NUMALOAD_STATIC" "$root/bin/numaload"
    cp "$scenario" "$root/$(basename "$scenario")"
    cp "$kdir/root/boot/config-$release" "$root/boot/"
    local dset=""
    [[ -n $duration ]] && dset="--set run.duration_s=$duration"
    cat >"$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
out=/dev/ttyS1
section() { echo "=====REALCHECK \$1 BEGIN====="; cat "\$2"; echo "=====REALCHECK \$1 END====="; }
cat /proc/vmstat > /tmp/vmstat.before
cat /proc/interrupts > /tmp/interrupts.before
mkdir -p /tmp/hist
# the guest's own costs first (numaload profile), for numasim to run at them
numaload profile --quick --json /tmp/profile.json --ini /tmp/profile.ini 2>/tmp/profile.err
echo \$? > /tmp/profile.rc
numaload /$(basename "$scenario") --quiet --trace --save-hist /tmp/hist --json /tmp/real.json $dset 2>/tmp/numaload.err
echo \$? > /tmp/rc
cat /proc/vmstat > /tmp/vmstat.after
cat /proc/interrupts > /tmp/interrupts.after
{
section rc /tmp/rc
section stderr /tmp/numaload.err
section profile.rc /tmp/profile.rc
section profile.err /tmp/profile.err
[ -f /tmp/profile.json ] && section profile.json /tmp/profile.json
[ -f /tmp/profile.ini ] && section profile.ini /tmp/profile.ini
[ -f /tmp/real.json ] && section json /tmp/real.json
for f in /tmp/vmstat.before /tmp/vmstat.after /tmp/interrupts.before /tmp/interrupts.after /tmp/hist/*.hist; do
    [ -f "\$f" ] && section "\$(basename \$f)" "\$f"
done
} > \$out
sync
poweroff -f
EOF
    chmod +x "$root/init"
    (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$img"
}

# A guest boots in about 10 s under TCG and then runs the scenario: with
# --duration, 180 s plus 4 s per second of it (the smoke's 8 s: 212 s) is a
# wide margin, and two boots of a hung guest stay inside CI's budget;
# without, the scenario's own duration is not read here: 600 s.
boot_limit=600
[[ -n $duration ]] && boot_limit=$(( 180 + 4 * (${duration%%.*} + 1) ))

# Two sockets of one node and two vCPUs each, 1 GiB per node, SLIT 10/20:
# the [machine] of scripts/realcheck/loop.ini.  -cpu max without la57: no
# INVLPGB under TCG, so the guest flushes with IPIs (x86-ipi).
boot() {
    local kdir=$1 release=$2 img=$3 console=$4 data=$5
    timeout --kill-after=10 "$boot_limit" qemu-system-x86_64 \
        -accel tcg,thread=multi -cpu max,la57=off \
        -smp 4,sockets=2,cores=2,threads=1 -m 2G \
        -object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G \
        -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
        -numa dist,src=0,dst=1,val=20 \
        -kernel "$kdir/root/boot/vmlinuz-$release" -initrd "$img" \
        -append "console=ttyS0 quiet loglevel=3 panic=-1" \
        -display none -monitor none -no-reboot \
        -serial "file:$console" -serial "file:$data" </dev/null
}

# What the guest wrote, for the terminal: printable ASCII, tabs and
# newlines only (a guest's console carries escape sequences).
printable() { LC_ALL=C tr -cd '\11\12\40-\176'; }

# Section NAME of the guest's data port.
section() {
    awk -v s="=====REALCHECK $1 BEGIN=====" -v e="=====REALCHECK $1 END=====" \
        '{sub(/\r$/, "")} $0 == s {on = 1; next} $0 == e {on = 0} on' "$2"
}

pairs=()
IFS=, read -r -a series_list <<<"$kernels"
for series in "${series_list[@]}"; do
    case "$series" in
        6.1) base=v6.1 ;;
        6.12) base=v6.12-debian ;; # the booted 6.12.118's stable backports (variants.c)
        *) echo "realcheck: no numasim base for kernel series $series (have 6.1, 6.12)" >&2; exit 2 ;;
    esac
    kdir=$(fetch_kernel "$series") ||
        { echo "realcheck: could not fetch a $series kernel (above)" >&2; exit 1; }
    release=$(basename "$(ls "$kdir"/root/boot/vmlinuz-*)")
    release=${release#vmlinuz-}
    img=$work/initramfs-$series.cpio.gz
    make_initramfs "$kdir" "$release" "$img"
    console=$out/console-$series.log
    data=$out/guest-$series.log
    # A guest that never reports (qemu or the emulated boot stopped before
    # numaload ran) is booted once more; a numaload that reports a failure
    # is not.
    # A panic or oops is reported whether or not the run went on: the
    # console of every failed boot is kept (console-SERIES.bootN.log) and
    # listed in boot-failures.txt, which the summary names.
    for attempt in 1 2; do
        echo "realcheck: booting $release (qemu TCG, 4 vCPUs on 2 nodes)" >&2
        start=$SECONDS
        qrc=0
        boot "$kdir" "$release" "$img" "$console" "$data" || qrc=$?
        echo "realcheck: guest $series done in $((SECONDS - start)) s (qemu status $qrc)" >&2
        rc=$(section rc "$data" 2>/dev/null || true) # no file: qemu stopped first
        oops=$( { grep -a -m1 -E 'Kernel panic|BUG:|Oops|general protection fault' "$console" 2>/dev/null || true; } | printable)
        if [[ -n $oops || -z $rc ]]; then
            cp "$console" "$out/console-$series.boot$attempt.log" 2>/dev/null || true
            printf '%s boot %d (qemu status %s): %s\n' "$release" "$attempt" "$qrc" \
                "${oops:-no report from the guest}" >>"$out/boot-failures.txt"
            echo "realcheck: the $series guest, boot $attempt: ${oops:-reported nothing}; its console's end:" >&2
            { tail -n 20 "$console" 2>/dev/null || true; } | printable >&2
        fi
        [[ -z $rc && $attempt -eq 1 ]] || break
    done
    if [[ -z $rc ]]; then
        echo "realcheck: the $series guest never reported, twice (qemu status $qrc)" >&2
        exit 1
    fi
    if [[ $rc != 0 ]]; then
        echo "realcheck: numaload failed in the $series guest (status '$(printf '%s' "$rc" | printable)'):" >&2
        { section stderr "$data" 2>/dev/null || true; } | printable >&2
        { tail -n 20 "$console" 2>/dev/null || true; } | printable >&2
        exit 1
    fi
    section json "$data" >"$out/real-$series.json"
    for f in vmstat.before vmstat.after interrupts.before interrupts.after \
             tlb_tlb_flush.hist migrate_mm_migrate_pages.hist sched_sched_skip_vma_numa.hist \
             sched_sched_move_numa.hist sched_sched_swap_numa.hist sched_sched_stick_numa.hist; do
        section "$f" "$data" >"$out/$series-$f"
        [[ -s $out/$series-$f ]] || rm -f "$out/$series-$f"
    done
    sim_args=(run "$scenario" --kernel "$base" --json "$out/sim-$series.json")
    [[ -n $duration ]] && sim_args+=(--duration "$duration")
    "$NUMASIM" "${sim_args[@]}" >"$out/sim-$series.txt"
    pairs+=("$series" "$out/real-$series.json" "$out/sim-$series.json")
    # numasim again at the guest's measured costs (numaload profile in the
    # guest, before the workload): the emulator's speeds, not the model
    # machine's, so that the two columns compare like with like
    prc=$(section profile.rc "$data" 2>/dev/null || true)
    section profile.json "$data" >"$out/profile-$series.json"
    section profile.ini "$data" >"$out/profile-$series.ini"
    if [[ $prc == 0 && -s $out/profile-$series.ini ]]; then
        sim_args=(run "$scenario" --kernel "$base" --costs "$out/profile-$series.ini"
                  --json "$out/sim-guest-costs-$series.json")
        [[ -n $duration ]] && sim_args+=(--duration "$duration")
        "$NUMASIM" "${sim_args[@]}" >"$out/sim-guest-costs-$series.txt"
        pairs+=("$series@guest-costs" "$out/real-$series.json" "$out/sim-guest-costs-$series.json")
    else
        echo "realcheck: numaload profile failed in the $series guest (status '$(printf '%s' "$prc" | printable)'):" >&2
        { section profile.err "$data" 2>/dev/null || true; } | printable >&2
        rm -f "$out/profile-$series.json" "$out/profile-$series.ini"
    fi
done

"$NUMALOAD" --table "${pairs[@]}" | tee "$out/table.txt"
if [[ -s $out/boot-failures.txt ]]; then
    echo "realcheck: $(wc -l <"$out/boot-failures.txt") boot(s) failed or oopsed, each booted again once:" >&2
    printable <"$out/boot-failures.txt" >&2
fi
echo "realcheck: JSON, guest logs and the table are in $out" >&2

# The smoke verdict: the real kernel balanced (PTE updates, hint faults),
# its counters reached the JSON, and numasim's compare reads it.
if [[ $smoke -eq 1 ]]; then
    passed=0 failed=0
    check() {
        if "$@" >/dev/null 2>&1; then passed=$((passed + 1)); else
            failed=$((failed + 1)); echo "realcheck smoke: FAIL: ${*: -1}" >&2; fi
    }
    real=$out/real-${series_list[0]}.json
    check grep -Eq '"numa_pte_updates": [1-9]' "$real"
    check grep -Eq '"numa_hint_faults": [1-9]' "$real"
    check grep -Eq '"tlb_shootdowns": [0-9]' "$real"
    check grep -q '"flush_tlb_batched_pending": [0-9]' "$real"
    check "$NUMASIM" compare "$real" "$out/sim-${series_list[0]}.json"
    # the guest profiled itself and numasim ran at its costs
    check grep -q '^pte_update_ns = [0-9]' "$out/profile-${series_list[0]}.ini"
    check "$NUMASIM" compare "$real" "$out/sim-guest-costs-${series_list[0]}.json"
    echo "$passed passed, $failed failed"
    [[ $failed -eq 0 ]]
fi
