#!/usr/bin/env bash
# Make numasim's man page from its --help texts with help2man (Debian:
# help2man): the top-level --help, then each command's as a section of its
# own.  Usage: scripts/mkman.sh BINARY OUTPUT
set -euo pipefail

bin=$1 out=$2
command -v help2man >/dev/null 2>&1 || { echo "mkman.sh: help2man not found: scripts/deps.sh installs it" >&2; exit 1; }
inc=$(mktemp "${TMPDIR:-/tmp}/numasim-man.XXXXXX")
trap 'rm -f "$inc"' EXIT

# roff-safe preformatted text: backslashes doubled, a leading . or ' escaped
roff() {
    sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

{
    echo "[COMMANDS]"
    for cmd in run ab validate timeline verify plot compare sweep scenarios kernels show; do
        echo ".SS $cmd"
        echo ".nf"
        "$bin" help "$cmd" | roff
        echo ".fi"
    done
    cat <<'TXT'
[FILES]
Scenario files are INI text ('numasim show seed' prints every key with its
meaning).  Results ('run --json', 'ab --json') are JSON; 'compare' and 'plot'
read them.
[SEE ALSO]
The documents in the source tree: README.md, docs/model.md (the model and
its invariants), docs/calibration.md, docs/traces.md,
docs/compare-and-plot.md, docs/sweeps.md, docs/oracle.md.
TXT
} >"$inc"

mkdir -p "$(dirname "$out")"
help2man --no-info --no-discard-stderr \
    --name="simulate Linux NUMA balancing, page migration and TLB shootdowns" \
    --include="$inc" --output="$out.tmp" "$bin"
mv "$out.tmp" "$out"
