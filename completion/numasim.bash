# bash completion for numasim                              -*- shell-script -*-
#
# Installed by 'make install' as $(PREFIX)/share/bash-completion/completions/numasim;
# from the source tree: source completion/numasim.bash
#
# The candidates come from the numasim being completed, at completion time,
# so they follow the binary: the commands from 'numasim --help', each
# command's options from the option table of 'numasim COMMAND --help',
# scenarios from 'numasim scenarios --names', kernels (BASE, BASE+PATCH+...,
# and comma-separated lists for --kernels) from 'numasim kernels --names',
# --set keys from the first built-in scenario's 'numasim show' text; files by
# their extension (.ini scenarios and sweep files, .json results, .sweep
# directories).

# The numasim the user is completing (./numasim, a path, or numasim on PATH).
_numasim_bin()
{
    local bin=${COMP_WORDS[0]}
    bin=${bin/#\~/$HOME}
    if [[ -x $bin && $bin == */* ]] || command -v "$bin" >/dev/null 2>&1; then
        printf '%s\n' "$bin"
    else
        printf '%s\n' numasim
    fi
}

# Add the candidates in $2 (one a line) that start with $1 to COMPREPLY.
_numasim_add()
{
    local cur=$1 w
    while IFS= read -r w; do
        [[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w")
    done <<<"$2"
    return 0
}

# Files ending in one of the extensions $2... (and directories) for word $1.
_numasim_files()
{
    local cur=$1 ext f
    shift
    compopt -o filenames 2>/dev/null || true
    while IFS= read -r f; do
        [[ -n $f ]] || continue
        if [[ -d $f ]]; then
            COMPREPLY+=("$f")
            continue
        fi
        for ext in "$@"; do
            [[ $f == *"$ext" ]] && { COMPREPLY+=("$f"); break; }
        done
    done < <(compgen -f -- "$cur")
    return 0
}

_numasim_dirs()
{
    compopt -o filenames 2>/dev/null || true
    local d
    while IFS= read -r d; do
        [[ -n $d ]] && COMPREPLY+=("$d")
    done < <(compgen -d -- "$1")
    return 0
}

# The commands: the lines of 'numasim --help' that start with two blanks and
# a lower-case word, from "commands:" to the first blank line after it
# ("help [COMMAND]" among them).
_numasim_commands()
{
    "$1" --help 2>/dev/null | sed -nE '/^commands:/,/^$/s/^  ([a-z][a-z-]*)( .*)?$/\1/p'
}

# A command's options: the first option of each line of its option table
# ("  --name ..." or "  -x, --name ...").
_numasim_options()
{
    "$1" "${@:2}" --help 2>/dev/null | sed -nE 's/^ {2,6}(-[a-zA-Z], )?(--[a-z][a-z0-9-]*).*/\2/p'
}

_numasim_scenarios()
{
    "$1" scenarios --names 2>/dev/null
}

# Kernels for word $2: a comma-separated list when $3 is "list" (--kernels);
# each element a base, or BASE+PATCH... once a '+' is typed.
_numasim_kernels()
{
    local bin=$1 cur=$2 mode=${3:-} head="" part=$2 stem names n cands=""
    if [[ $mode == list && $cur == *,* ]]; then
        head=${cur%,*},
        part=${cur##*,}
    fi
    names=$("$bin" kernels --names 2>/dev/null)
    if [[ $part == *+* ]]; then
        stem=${part%+*}
        while IFS= read -r n; do
            [[ $n == +* ]] && cands+="$head$stem$n"$'\n'
        done <<<"$names"
    else
        while IFS= read -r n; do
            [[ -n $n && $n != +* ]] && cands+="$head$n"$'\n'
        done <<<"$names"
    fi
    _numasim_add "$cur" "$cands"
    # a kernel may go on: no space after it
    compopt -o nospace 2>/dev/null || true
    return 0
}

# --set KEY=: the keys of the first built-in scenario's INI text, as
# SECTION.KEY ([tunables] keys by their own, kernel, names).
_numasim_set_keys()
{
    local bin=$1 cur=$2 first
    first=$("$bin" scenarios --names 2>/dev/null | head -n 1)
    [[ -n $first ]] || return 0
    _numasim_add "$cur" "$("$bin" show "$first" 2>/dev/null | awk '
        /^\[[a-z_]+\]/ { s = substr($1, 2, length($1) - 2); next }
        /^[a-z_.0-9]+ *=/ { k = $1; sub(/=.*/, "", k)
                           print (s == "tunables" ? k : s "." k) "=" }')"
    compopt -o nospace 2>/dev/null || true
    return 0
}

_numasim()
{
    COMPREPLY=()
    local cword=$COMP_CWORD
    local cur=${COMP_WORDS[cword]:-} prev=""
    ((cword > 0)) && prev=${COMP_WORDS[cword - 1]}
    # --opt=VALUE: bash splits the word at '=' (COMP_WORDBREAKS), so the
    # value is completed as a word of its own after "--opt" "="
    if [[ $cur == = ]]; then
        cur=""
    elif [[ $prev == = ]] && ((cword > 1)); then
        prev=${COMP_WORDS[cword - 2]}
    fi

    local bin cmd="" sub=() i w
    bin=$(_numasim_bin)
    # the command: the first word after numasim that is not an option
    for ((i = 1; i < cword; i++)); do
        w=${COMP_WORDS[i]}
        [[ $w == -* ]] && continue
        cmd=$w
        break
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            _numasim_add "$cur" $'--help\n--version'
        else
            _numasim_add "$cur" "$(_numasim_commands "$bin")"
        fi
        return 0
    fi
    [[ $cmd == sweep && ${COMP_WORDS[i + 1]:-} == collect ]] && ((i + 1 < cword)) && sub=(collect)

    # an option's value
    case $prev in
        --kernel) _numasim_kernels "$bin" "$cur"; return 0 ;;
        --kernels) _numasim_kernels "$bin" "$cur" list; return 0 ;;
        --set) _numasim_set_keys "$bin" "$cur"; return 0 ;;
        --costs) _numasim_files "$cur" .ini; return 0 ;;
        --json) _numasim_files "$cur" .json; return 0 ;;
        --trace|-o|--output|--out)
            if [[ $cmd == sweep || $cmd == validate ]]; then
                _numasim_dirs "$cur"
            else
                _numasim_files "$cur" .json .svg .png .pdf .txt
            fi
            return 0 ;;
        --realcheck) _numasim_dirs "$cur"; return 0 ;;
        --emit) _numasim_add "$cur" $'slurm\nparallel'; return 0 ;;
        --balancing) _numasim_add "$cur" $'both\non\noff'; return 0 ;;
        --seed|--seeds|--duration|--pairs|--jobs|--point|--pass|--first|--title|--kind|--metric|\
        --trace-window|--trace-events|--trace-max-mb|--slurm-opt|--array-limit|--points-per-task)
            return 0 ;;
    esac

    if [[ $cur == -* ]]; then
        _numasim_add "$cur" "$(_numasim_options "$bin" "$cmd" "${sub[@]}")"
        return 0
    fi

    # positional arguments
    case $cmd in
        help)
            ((cword == i + 1)) && _numasim_add "$cur" "$(_numasim_commands "$bin")" ;;
        run|ab|timeline|verify)
            _numasim_add "$cur" "$(_numasim_scenarios "$bin")"
            _numasim_files "$cur" .ini ;;
        show)
            _numasim_add "$cur" "$(_numasim_scenarios "$bin")" ;;
        plot|compare)
            _numasim_files "$cur" .json ;;
        sweep)
            if ((${#sub[@]})); then
                _numasim_dirs "$cur"
            else
                ((cword == i + 1)) && _numasim_add "$cur" collect
                _numasim_files "$cur" .ini .sweep
            fi ;;
    esac
    return 0
}

complete -F _numasim numasim
