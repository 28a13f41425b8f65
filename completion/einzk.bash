# bash completion for einzk. The subcommands and their options come from the program
# itself (`einzk --list-commands`, `einzk --list-options CMD`: the parser's own tables),
# so this file never lists them and cannot drift from them.
#   einzk <TAB>                 the subcommands
#   einzk prove --<TAB>         prove's options
#   einzk prove --pk <TAB>      files (for an option whose value is a file)
#   einzk setup M.einc --pcs <TAB>   whir ligero
_einzk() {
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local prog=${COMP_WORDS[0]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$("$prog" --list-commands 2>/dev/null) --help --version" -- "$cur"))
        return
    fi
    local cmd=${COMP_WORDS[1]}
    [ "$cmd" = help ] && {
        [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$("$prog" --list-commands 2>/dev/null)" -- "$cur"))
        return
    }
    local opts
    opts=$("$prog" --list-options "$cmd" 2>/dev/null) || return
    # the value of the option before the cursor: files, unless it is a number or a word
    local value
    value=$(printf '%s\n' "$opts" | awk -v o="$prev" '$1 == o { print $2 }')
    if [ -n "$value" ] && [ "$value" != - ]; then
        case $value in
        N | ID | IDS | TEXT | NAME=VALUE) ;;
        SCHEME) COMPREPLY=($(compgen -W "whir ligero" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | awk '{ print $1 }')" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _einzk einzk
