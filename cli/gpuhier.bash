# SPDX-License-Identifier: MIT
# bash completion for gpuhier, installed as
# share/bash-completion/completions/gpuhier.
#
# Commands, options and option values are read from the gpuhier being
# completed (`gpuhier --help`, `gpuhier CMD --help`: a value list is the
# `--opt a|b|c` of the usage), so the completion cannot drift from the
# binary; only the report views are listed here. Reports complete as
# *.db files, rule ids from `gpuhier rules`, demo names from
# `gpuhier demo --list`; after `gpuhier run`'s options, the program and
# its arguments complete as the program's own.

# The help text of "$1 $2" (or of "$1" when $2 is empty), cached per shell.
_gpuhier_help()
{
    local key="$1 $2"
    if [[ $key != "${_gpuhier_help_key-}" ]]; then
        _gpuhier_help_key=$key
        if [[ -n $2 ]]; then
            _gpuhier_help_text=$("$1" "$2" --help 2>&1)
        else
            _gpuhier_help_text=$("$1" --help 2>&1)
        fi
    fi
    printf '%s\n' "$_gpuhier_help_text"
}

# Does option $3 of command "$1 $2" take a value? (help shows "--opt VALUE" or "--opt a|b")
_gpuhier_takes_value()
{
    _gpuhier_help "$1" "$2" | grep -Eq -- "(^|[ ,[])$3(, --?[a-z-]+)?( [A-Z]| [a-z]+\||=)"
}

_gpuhier_reports()
{
    compgen -f -X '!*.db' -- "$1"
    compgen -d -S / -- "$1"
}

_gpuhier()
{
    local g=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=""
    local cmd=${COMP_WORDS[1]-} i
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    local commands
    commands=$(_gpuhier_help "$g" "" | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$commands help --help --version" -- "$cur"))
        return
    fi
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    if [[ $cmd == run ]]; then
        # The first word that is neither an option nor an option's value is the program.
        for ((i = 2; i < COMP_CWORD; i++)); do
            local w=${COMP_WORDS[i]}
            if [[ $w == -- ]]; then
                ((i++))
                break
            elif [[ $w == -* ]]; then
                [[ $w != *=* ]] && _gpuhier_takes_value "$g" run "$w" && ((i++))
            else
                break
            fi
        done
        if ((i < COMP_CWORD)); then
            if declare -F _command_offset > /dev/null; then
                _command_offset "$i"
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        fi
        if ((i == COMP_CWORD)) && [[ $cur != -* ]] && ! _gpuhier_takes_value "$g" run "$prev"; then
            COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
            return
        fi
    fi
    case $prev in
    --view)
        if [[ $cmd == report || $cmd == demo ]]; then
            COMPREPLY=($(compgen -W "summary kernels configs kernel profiles source findings finding copies nvtx ranks" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "summary kernels findings copies" -- "$cur"))
        fi
        return
        ;;
    --rules)
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    --baseline)
        COMPREPLY=($(_gpuhier_reports "$cur"))
        return
        ;;
    --name)
        if [[ $cmd == demo ]]; then
            COMPREPLY=($(compgen -W "$("$g" demo --list 2> /dev/null | sed -n 's/^tk-//p')" -- "$cur"))
            return
        fi
        ;;
    --rule)
        COMPREPLY=($(compgen -W "$("$g" rules 2> /dev/null | awk 'NR > 3 && NF { print $1 }')" -- "$cur"))
        return
        ;;
    explain)
        if [[ $cmd == rules ]]; then
            COMPREPLY=($(compgen -W "$("$g" rules 2> /dev/null | awk 'NR > 3 && NF { print $1 }')" -- "$cur"))
            return
        fi
        ;;
    -o | --output)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    esac
    if [[ $prev == -* ]]; then
        # A value list from the usage, "--format md|json|csv": offer it.
        local values
        values=$(_gpuhier_help "$g" "$cmd" | grep -Eo -- "$prev[ =]\[?[a-z]+(\|[a-z]+)+" | head -1)
        if [[ -n $values ]]; then
            values=${values#"$prev"?}
            values=${values#[}
            COMPREPLY=($(compgen -W "${values//|/ }" -- "$cur"))
            return
        fi
        # Any other option with a value (a number, a regex, a name): nothing to offer.
        _gpuhier_takes_value "$g" "$cmd" "$prev" && return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuhier_help "$g" "$cmd" | grep -Eo -- '(^|[ ,[])--?[a-zA-Z][a-z-]*' |
            sed 's/^[ ,[]*//' | sort -u)" -- "$cur"))
        return
    fi
    if [[ $cmd == rules ]]; then
        COMPREPLY=($(compgen -W "explain" -- "$cur"))
        return
    fi
    COMPREPLY=($(_gpuhier_reports "$cur"))
}
complete -F _gpuhier gpuhier
