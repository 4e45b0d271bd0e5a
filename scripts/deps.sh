#!/usr/bin/env bash
# Install the Debian packages numasim needs to build and test.
# Usage: scripts/deps.sh [--optional] [--bench] [--realcheck] [--fuzz]
#   --optional   also install optional packages (gnuplot-nox, poppler-utils); failures there only warn.
#   --bench      also install what bench/run.sh needs (jq, GNU time, valgrind).
#   --realcheck  also install what scripts/realcheck.sh needs (qemu, busybox, cpio).
#   --fuzz       also install what make fuzz needs (clang and its libFuzzer runtime).
# Idempotent and silent when everything is already installed.
set -euo pipefail

# zlib1g-dev: --trace writes large Chrome JSON traces gzip'd (FILE.json.gz), the
# field's standard compression, which Perfetto and chrome://tracing open as is.
# trace-cmd: tests/e2e/trace.sh reads numasim's trace.dat with 'trace-cmd report'.
# munge slurmctld slurmd slurm-client: tests/e2e/slurm.sh runs a sweep through a
# single-node Slurm it starts itself (no service is enabled or started here).
REQUIRED=(build-essential pkgconf libcmocka-dev libinih-dev libjansson-dev libnuma-dev zlib1g-dev jq help2man trace-cmd
          munge slurmctld slurmd slurm-client)
# poppler-utils: tests/e2e/plot.sh measures the PDFs (pdfinfo, pdftotext -bbox).
OPTIONAL=(gnuplot-nox poppler-utils)
BENCH=(jq time valgrind)
# qemu-system-x86 boots the guests; busybox-static is the guest's userland;
# cpio and gzip pack the initramfs.  (libnuma-dev, for numaload, is required.)
REALCHECK=(qemu-system-x86 busybox-static cpio gzip)
FUZZ=(clang libclang-rt-dev)

want_optional=0
want_bench=0
want_realcheck=0
want_fuzz=0
for arg in "$@"; do
    case "$arg" in
        --optional) want_optional=1 ;;
        --bench) want_bench=1 ;;
        --realcheck) want_realcheck=1 ;;
        --fuzz) want_fuzz=1 ;;
        -h|--help)
            echo "usage: $0 [--optional] [--bench] [--realcheck] [--fuzz]"
            exit 0 ;;
        *)
            echo "deps.sh: unknown argument: $arg" >&2
            exit 2 ;;
    esac
done

is_installed() {
    local status
    status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
    [[ $status == *" ok installed" ]]
}

missing_of() {
    local p
    for p in "$@"; do
        is_installed "$p" || printf '%s\n' "$p"
    done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps.sh: dpkg-query not found; this script supports Debian/Ubuntu only." >&2
    echo "deps.sh: please install manually: ${REQUIRED[*]}" >&2
    exit 1
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    fi
fi

updated=0
# apt_install [--no-install-recommends] PACKAGE...
apt_install() {
    local opts=()
    if [[ ${1:-} == --no-install-recommends ]]; then
        opts=("$1")
        shift
    fi
    if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
        echo "deps.sh: not root and sudo is unavailable; cannot install: $*" >&2
        return 1
    fi
    if [[ $updated -eq 0 ]]; then
        echo "deps.sh: running apt-get update" >&2
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update || return 1
        updated=1
    fi
    echo "deps.sh: installing: $*" >&2
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${opts[@]}" "$@" && return 0
    # once more after fresh lists: a mirror in the middle of an update can
    # list a version its pool no longer has
    echo "deps.sh: install failed; updating the package lists and trying again" >&2
    sleep 5
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update || return 1
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${opts[@]}" "$@"
}

mapfile -t missing < <(missing_of "${REQUIRED[@]}")
if [[ ${#missing[@]} -gt 0 ]]; then
    if ! apt_install "${missing[@]}"; then
        echo "deps.sh: failed to install required packages: ${missing[*]}" >&2
        exit 1
    fi
fi

if [[ $want_optional -eq 1 ]]; then
    mapfile -t missing_opt < <(missing_of "${OPTIONAL[@]}")
    if [[ ${#missing_opt[@]} -gt 0 ]]; then
        if ! apt_install "${missing_opt[@]}"; then
            echo "deps.sh: warning: could not install optional packages: ${missing_opt[*]}" >&2
        fi
    fi
fi

if [[ $want_bench -eq 1 ]]; then
    mapfile -t missing_bench < <(missing_of "${BENCH[@]}")
    if [[ ${#missing_bench[@]} -gt 0 ]] && ! apt_install "${missing_bench[@]}"; then
        echo "deps.sh: failed to install benchmark tools: ${missing_bench[*]}" >&2
        exit 1
    fi
fi

if [[ $want_realcheck -eq 1 ]]; then
    mapfile -t missing_rc < <(missing_of "${REALCHECK[@]}")
    # qemu's recommends (GUI, audio, firmware for other machines) are not needed
    if [[ ${#missing_rc[@]} -gt 0 ]] && ! apt_install --no-install-recommends "${missing_rc[@]}"; then
        echo "deps.sh: failed to install the realcheck tools: ${missing_rc[*]}" >&2
        exit 1
    fi
fi

if [[ $want_fuzz -eq 1 ]]; then
    mapfile -t missing_fuzz < <(missing_of "${FUZZ[@]}")
    if [[ ${#missing_fuzz[@]} -gt 0 ]] && ! apt_install "${missing_fuzz[@]}"; then
        echo "deps.sh: failed to install the fuzzing tools: ${missing_fuzz[*]}" >&2
        exit 1
    fi
fi

exit 0
