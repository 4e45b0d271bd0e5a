#!/usr/bin/env bash
# Make numasim's man page from its --help texts with help2man (Debian:
# help2man): the top-level --help, then each command's as a section of its
# own.  Usage: scripts/mkman.sh BINARY OUTPUT
set -euo pipefail

bin=$1 out=$2
command -v help2man >/dev/null 2>&1 || { echo "mkman.sh: help2man not found: scripts/deps.sh --man installs it" >&2; exit 1; }
inc=$(mktemp "${TMPDIR:-/tmp}/numasim-man.XXXXXX")
trap 'rm -f "$inc"' EXIT

# roff-safe preformatted text: backslashes doubled, a leading . or ' escaped
roff() {
    sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

name=$(basename "$bin")
if [[ $name == numaload ]]; then
    cat >"$inc" <<'TXT'
[SYNOPSIS]
.B numaload
.I SCENARIO.ini
.RB [ \-\-json
.IR FILE ]
.RB [ \-\-threads
.IR pinned | node | free ]
.RB [ \-\-trace ]
.RB [ \-\-set
.IR KEY=VALUE ]...
.br
.B numaload profile
.RB [ \-\-json
.IR FILE ]
.RB [ \-\-ini
.IR FILE ]
.RB [ \-\-quick ]
.RB [ \-\-cpus
.IR LIST ]
.br
.B numaload \-\-table
.I LABEL REAL.json SIM.json
\&...
.br
.B numaload \-\-version
[EXAMPLES]
.nf
sudo numaload scenario.ini --json real.json     # the scenario's workload on this machine
numasim run scenario.ini --kernel v6.12 --json sim.json
numaload --table here real.json sim.json        # the kernel's counters beside numasim's
numaload profile --ini here.ini                 # this machine's costs
numasim run seed --costs here.ini               # the seed on a model of this machine
.fi
[EXIT STATUS]
0 done; 1 a failure of the run or of a measurement --require asked for;
2 bad input (nothing written, no tunable changed); 130 interrupted (the
tunables put back).
[SEE ALSO]
.BR numasim (1);
docs/realcheck.md in the source tree.
TXT
    mkdir -p "$(dirname "$out")"
    help2man --no-info --no-discard-stderr \
        --name="run a numasim scenario on a real Linux machine and measure its costs" \
        --include="$inc" --output="$out.tmp" "$bin"
    mv "$out.tmp" "$out"
    exit 0
fi

{
    cat <<'TXT'
[SYNOPSIS]
.B numasim
.I COMMAND
.RI [ OPTIONS ]
.br
.B numasim run
.IR SCENARIO | FILE
.RB [ \-\-kernel
.IR K ]
.RB [ \-\-set
.IR KEY=VALUE ]...
.RB [ \-\-json
.IR FILE ]
.br
.B numasim ab
.IR SCENARIO | FILE
.B \-\-kernels
.I A,B
.RB [ \-\-pairs
.IR N ]
.br
.B numasim validate
.RB [ \-\-short ]
.RB [ \-\-realcheck
.IR DIR ]
.br
.B numasim sweep
.I SPEC
.RB [ \-o
.IR DIR ]
.br
.B numasim verify | timeline | plot | compare | scenarios | kernels | show | help
\&...
.br
.B numasim \-\-version
[EXAMPLES]
.nf
numasim run seed --kernel v7.3+single-folio-v2           # the fix
numasim ab seed --kernels v7.3,v7.3+single-folio-v2 --pairs 3   # the seed table
numasim validate --short                                 # every published figure: in or miss
numasim run small --set numa_balancing.scan_size_mb=64 --duration 10
numasim show seed > my.ini && numasim run my.ini         # a scenario of your own
numasim verify small --kernel v7.3+no-pending-check      # the TLB oracle finds the race
numasim sweep scan.ini --jobs 2 && numasim sweep collect scan.sweep
.fi
[EXIT STATUS]
0 done; 2 bad input (the scenario, a key, an option: nothing run or
written); 1 an internal failure or an output that could not be written;
3 verify found stale translations; 4 verify checked nothing
(inconclusive), or validate --strict with a row that misses; 130 or 143
interrupted.
TXT
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
} >>"$inc"

mkdir -p "$(dirname "$out")"
help2man --no-info --no-discard-stderr \
    --name="simulate Linux NUMA balancing, page migration and TLB shootdowns" \
    --include="$inc" --output="$out.tmp" "$bin"
mv "$out.tmp" "$out"
