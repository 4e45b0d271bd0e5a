#!/usr/bin/env bash
# Bash completion (completion/numasim.bash): sourced in bash, called as bash
# calls it (COMP_WORDS, COMP_CWORD), its COMPREPLY holds the commands,
# scenarios, kernels (BASE+PATCH, comma lists), options and files expected;
# the candidates come from the numasim being completed.
set -euo pipefail

: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/completion.XXXXXX")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# shellcheck source=/dev/null
source "$root/completion/numasim.bash"
complete -p numasim >/dev/null || fail "the script registers no completion for numasim"

# complete WORD... : COMPREPLY for the last word, one a line, in $reply
complete_words() {
    COMP_WORDS=("$NUMASIM" "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _numasim
    reply=$(printf '%s\n' "${COMPREPLY[@]}")
}
# has WORDS... : EXPECTED...: each expected candidate is offered
has() {
    local words=() w
    while [[ $1 != : ]]; do words+=("$1"); shift; done
    shift
    complete_words "${words[@]}"
    for w in "$@"; do
        grep -qxF -- "$w" <<<"$reply" || fail "numasim ${words[*]}<TAB>: no '$w' among: $(tr '\n' ' ' <<<"$reply")"
    done
}
# only WORDS... : EXPECTED...: exactly these candidates, in this order
only() {
    local words=()
    while [[ $1 != : ]]; do words+=("$1"); shift; done
    shift
    complete_words "${words[@]}"
    [[ $reply == "$(printf '%s\n' "$@")" ]] ||
        fail "numasim ${words[*]}<TAB>: '$(tr '\n' ' ' <<<"$reply")', expected '$*'"
}

cd "$work"
only r : run
has '' : run ab validate timeline verify plot compare sweep scenarios kernels show help
[[ $(grep -cx help <<<"$reply") -eq 1 ]] || fail "help offered more than once"
only - : --help --version
only sw : sweep
only help ti : timeline
# scenarios from 'numasim scenarios --names', and none that is not a scenario
has run s : seed small small-arm64 seed-thp
mapfile -t s_names < <("$NUMASIM" scenarios --names | grep '^s')
has run s : "${s_names[@]}"
complete_words run s
grep -qvx -- 'numa01' <<<"$reply" || fail "run s<TAB> offered numa01"
only show numa02 : numa02 numa02_SMT
# kernels: bases, BASE+PATCH, comma lists for --kernels, --kernel=VALUE
only run seed --kernel v7.3+s : v7.3+single-folio-v1 v7.3+single-folio-v2
has run seed --kernel v : v5.12 v6.4 v7.3
complete_words run seed --kernel v
grep -q '+' <<<"$reply" && fail "a patch offered before any '+': $reply"
only run seed --kernel v7.3+flush-side+single-folio-v : v7.3+flush-side+single-folio-v1 v7.3+flush-side+single-folio-v2
has ab seed --kernels v7.3,v6.4 : v7.3,v6.4
only ab seed --kernels v7.3,v6.4+flush-side-n : v7.3,v6.4+flush-side-naive
has run seed --kernel = : v7.3 v6.12-debian
only run seed --kernel = v6.12- : v6.12-debian
# options from each command's --help option table
has run seed --k : --kernel
has run seed -- : --kernel --seed --duration --exact --set --json --trace --oracle --check
complete_words run seed --
grep -qx -- --kernels <<<"$reply" && fail "run offered ab's --kernels"
has ab seed --k : --kernels
has sweep --p : --point --points-per-task
complete_words sweep --
grep -qx -- --mem <<<"$reply" && fail "sweep offered --mem (an example in its help, not an option)"
only ab seed --balancing o : on off
only sweep s.ini --emit s : slurm
has scenarios --n : --names
has kernels --n : --names
# --set keys from the first scenario's INI text
has run seed --set numa_balancing.scan_s : numa_balancing.scan_size_mb=
has run seed --set workload.thr : workload.threads=
# files by extension, directories too
mkdir sub res.sweep
touch q.ini a.json b.txt s.sweep sub/x.json
only run q : q.ini
complete_words run ''
{ grep -qx q.ini <<<"$reply" && grep -qx seed <<<"$reply"; } || fail "run <TAB> lacks q.ini or seed: $reply"
grep -qx b.txt <<<"$reply" && fail "run <TAB> offered b.txt"
only plot a : a.json
has compare '' : a.json sub
only run seed --json a : a.json
has sweep '' : q.ini s.sweep collect
only sweep collect r : res.sweep
only sweep q.ini c : 

# the completion fed by ./numasim (a relative path) works as well
ln -s "$NUMASIM" numasim
COMP_WORDS=(./numasim run seed --kernel v7.3+single-folio-v)
COMP_CWORD=4
COMPREPLY=()
_numasim
[[ "${COMPREPLY[*]}" == "v7.3+single-folio-v1 v7.3+single-folio-v2" ]] || fail "./numasim: ${COMPREPLY[*]}"

echo "completion: commands, scenarios, kernels, options, --set keys and files"
