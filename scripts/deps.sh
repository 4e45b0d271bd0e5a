#!/usr/bin/env bash
# Install the Debian packages numasim needs.
# Usage: scripts/deps.sh [--test] [--man] [--optional] [--bench] [--realcheck] [--fuzz]
#   (none)       what building numasim and numaload and running them needs
#                (what ./run.sh installs).
#   --test       also what 'make test' and .ci/run need: cmocka, jq, trace-cmd,
#                a single-node Slurm with munge, poppler-utils, python3-jsonschema;
#                and help2man (--man).
#   --man        also help2man, for the man pages 'make install' and 'make man' make.
#   --optional   also install optional packages (gnuplot-nox, for 'numasim plot');
#                failures there only warn.
#   --bench      also install what bench/run.sh needs (jq, GNU time, valgrind).
#   --realcheck  also install what scripts/realcheck.sh needs (qemu, busybox, cpio).
#   --fuzz       also install what make fuzz needs (clang and its libFuzzer runtime).
# Idempotent and silent when everything is already installed.
set -euo pipefail

# Building and running: the compiler, pkg-config and the libraries numasim
# links (inih, jansson; zlib1g-dev: --trace writes large Chrome JSON traces
# gzip'd, FILE.json.gz, which Perfetto and chrome://tracing open as is);
# libnuma-dev for numaload.
# The static libraries numaload-static links come with the -dev packages.
REQUIRED=(build-essential pkgconf libinih-dev libjansson-dev libnuma-dev zlib1g-dev)
# The tests: cmocka (unit tests); jq (e2e tests read JSON); trace-cmd
# (tests/e2e/trace.sh reads numasim's trace.dat with 'trace-cmd report');
# munge slurmctld slurmd slurm-client (tests/e2e/slurm.sh runs a sweep through
# a single-node Slurm it starts itself; no service is enabled or started here,
# but on a systemd machine Debian's munge package starts munged when it is
# installed: one more reason ./run.sh does not install these); poppler-utils
# (tests/e2e/plot.sh measures the PDFs: pdfinfo, pdftotext -bbox); python3-jsonschema
# (tests/e2e/schema.sh validates result JSON against docs/schema/).
TEST=(libcmocka-dev jq trace-cmd munge slurmctld slurmd slurm-client poppler-utils python3-jsonschema)
# help2man: scripts/mkman.sh makes the man pages from the --help texts
# (make install, make man; CI's install stage).
MAN=(help2man)
OPTIONAL=(gnuplot-nox)
BENCH=(jq time valgrind)
# qemu-system-x86 boots the guests; busybox-static is the guest's userland;
# cpio and gzip pack the initramfs.  (libnuma-dev, for numaload, is required.)
REALCHECK=(qemu-system-x86 busybox-static cpio gzip)
FUZZ=(clang libclang-rt-dev)

want_test=0
want_man=0
want_optional=0
want_bench=0
want_realcheck=0
want_fuzz=0
for arg in "$@"; do
    case "$arg" in
        --test) want_test=1; want_man=1 ;;
        --man) want_man=1 ;;
        --optional) want_optional=1 ;;
        --bench) want_bench=1 ;;
        --realcheck) want_realcheck=1 ;;
        --fuzz) want_fuzz=1 ;;
        -h|--help)
            echo "usage: $0 [--test] [--man] [--optional] [--bench] [--realcheck] [--fuzz]"
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
    manual=("${REQUIRED[@]}")
    [[ $want_test -eq 0 ]] || manual+=("${TEST[@]}")
    [[ $want_man -eq 0 ]] || manual+=("${MAN[@]}")
    echo "deps.sh: please install manually: ${manual[*]}" >&2
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

if [[ $want_test -eq 1 ]]; then
    mapfile -t missing_test < <(missing_of "${TEST[@]}")
    if [[ ${#missing_test[@]} -gt 0 ]] && ! apt_install "${missing_test[@]}"; then
        echo "deps.sh: failed to install the test packages: ${missing_test[*]}" >&2
        exit 1
    fi
fi

if [[ $want_man -eq 1 ]]; then
    mapfile -t missing_man < <(missing_of "${MAN[@]}")
    if [[ ${#missing_man[@]} -gt 0 ]] && ! apt_install "${missing_man[@]}"; then
        echo "deps.sh: failed to install help2man: ${missing_man[*]}" >&2
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
