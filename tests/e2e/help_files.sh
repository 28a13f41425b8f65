#!/bin/sh
# help_files — the manual page and the bash completion come from the command tables:
#   - einzk.1 (built by `einzk --man`) is what the program prints now, renders without
#     groff warnings, and names every subcommand and every option of every subcommand;
#   - completion/einzk.bash, sourced into bash, offers the subcommands after "einzk ",
#     a subcommand's options after "einzk prove --", files after an option whose value
#     is a file, and whir/ligero after --pcs.
set -eu
me=help_files
. "$(dirname "$0")/common.sh"
need_built "$EINZK"

man1=$top_builddir/einzk.1
[ -f "$man1" ] || fail "einzk.1 was not built"
"$EINZK" --man >"$work/man.1"
cmp -s "$man1" "$work/man.1" || fail "einzk.1 differs from what 'einzk --man' prints (stale)"
if command -v groff >/dev/null 2>&1; then
    groff -man -Tascii -P-cbou -ww "$man1" >"$work/man.txt" 2>"$work/groff.err"
    [ ! -s "$work/groff.err" ] || fail "groff warns: $(cat "$work/groff.err")"
    for c in $("$EINZK" --list-commands); do
        [ "$c" = help ] && continue
        grep -q "^   $c\$" "$work/man.txt" || fail "einzk.1 has no section for '$c'"
        for o in $("$EINZK" --list-options "$c" | awk '$1 != "--help" { print $1 }'); do
            grep -q -e "$o" "$work/man.txt" || fail "einzk.1 lacks option $o of '$c'"
        done
    done
    echo "help_files: einzk.1 is current, renders cleanly and names every command and option"
fi

expect 2 "--list-options of an unknown command" -- "$EINZK" --list-options nope
command -v bash >/dev/null 2>&1 || { echo "help_files: no bash, completion not tested"; exit 0; }
mkdir "$work/dir"
: >"$work/dir/m.pk"
# complete WORDS...: what _einzk offers for the command line WORDS (the last is the word
# being completed), one per line, sorted
complete_words() {
    (cd "$work/dir" && bash -c '
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _einzk
        printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$top_srcdir/completion/einzk.bash" "$EINZK" "$@")
}
complete_words "" >"$work/c1.txt"
for c in check compile prove verify inspect calibrate --help; do
    grep -qx -e "$c" "$work/c1.txt" || fail "completion after 'einzk ' lacks $c: $(tr '\n' ' ' <"$work/c1.txt")"
done
complete_words pro >"$work/c2.txt"
[ "$(cat "$work/c2.txt")" = prove ] || fail "completion of 'pro': $(cat "$work/c2.txt")"
complete_words prove m.einc -- >"$work/c3.txt"
"$EINZK" --list-options prove | awk '$1 ~ /^--/ { print $1 }' | sort >"$work/want.txt"
cmp -s "$work/c3.txt" "$work/want.txt" || fail "completion of 'prove --': $(tr '\n' ' ' <"$work/c3.txt")"
complete_words prove m.einc --pk m >"$work/c4.txt"
[ "$(cat "$work/c4.txt")" = m.pk ] || fail "completion after --pk: $(cat "$work/c4.txt")"
complete_words setup m.einc --pcs "" >"$work/c5.txt"
[ "$(tr '\n' ' ' <"$work/c5.txt")" = "ligero whir " ] || fail "completion after --pcs: $(cat "$work/c5.txt")"
complete_words help ver >"$work/c6.txt"
[ "$(cat "$work/c6.txt")" = verify ] || fail "completion after 'help ver': $(cat "$work/c6.txt")"
echo "help_files: the bash completion offers subcommands, options, files and schemes"
