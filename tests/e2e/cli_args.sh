#!/bin/sh
# cli_args — the one option parser of every subcommand (cli/args.c):
#   - `einzk CMD --help` and `einzk help CMD` print the same text, exit 0, and every
#     option they list is documented in docs/cli.md under that command (and the other
#     way round), so neither can drift from the table the parser reads;
#   - --opt=value means --opt value (gen writes the same files either way), and a
#     one-letter option takes an attached value (-oFILE, -DNAME=V);
#   - usage errors exit 2 and name the problem: an unknown option (with did-you-mean),
#     a missing value or required option or operand, a non-repeatable option given
#     twice, a value given to a flag, the same -D NAME twice (check and compile), an
#     unknown command (with did-you-mean).
set -eu
me=cli_args
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
doc="$top_srcdir/docs/cli.md"

# expect_usage WHAT PATTERN -- command...: exit 2 and PATTERN on stderr
expect_usage() {
    what=$1
    pattern=$2
    shift 2
    expect 2 "$what" "$@"
    grep -q -e "$pattern" "$work/err.txt" || {
        cat "$work/err.txt" >&2
        fail "$what: stderr does not say '$pattern'"
    }
}

for c in check compile info gen run setup prove verify generate certify inspect calibrate; do
    expect 0 "$c --help" -- "$EINZK" "$c" --help
    mv "$work/out.txt" "$work/help1.txt"
    expect 0 "help $c" -- "$EINZK" help "$c"
    cmp -s "$work/help1.txt" "$work/out.txt" || fail "'einzk $c --help' and 'einzk help $c' differ"
    grep -q "^usage: einzk $c " "$work/out.txt" || fail "help $c has no usage line"
    # the options in the help, and in docs/cli.md's section "## einzk $c"
    sed -n '/^options:/,/^$/p' "$work/out.txt" | awk '$1 ~ /^-/ && $1 != "-h," { print $1 }' | sort >"$work/h.txt"
    sed -n "/^## einzk $c\$/,/^## /p" "$doc" | sed -n 's/^| `\(-[^ `]*\).*/\1/p' | sort >"$work/d.txt"
    [ -s "$work/h.txt" ] || fail "help $c lists no options"
    cmp -s "$work/h.txt" "$work/d.txt" || {
        diff "$work/h.txt" "$work/d.txt" >&2 || true
        fail "the options of '$c' in its help and in docs/cli.md differ"
    }
done
echo "cli_args: every subcommand's help comes from its table and matches docs/cli.md"

# --opt=value, --opt value and attached one-letter values mean the same
src="$top_srcdir/examples/linear.ein"
expect 0 "compile -oFILE" -- "$EINZK" compile "$src" "-o$work/m.einc"
expect 0 "gen, spaces" -- "$EINZK" gen "$work/m.einc" --seed 5 --weights "$work/w1.st" --input "$work/i1.json"
expect 0 "gen, =" -- "$EINZK" gen "$work/m.einc" --seed=5 "--weights=$work/w2.st" "--input=$work/i2.json"
cmp -s "$work/w1.st" "$work/w2.st" && cmp -s "$work/i1.json" "$work/i2.json" ||
    fail "gen --opt=value wrote other files than gen --opt value"
expect 0 "check -DNAME=V" -- "$EINZK" check "$top_srcdir/examples/attention.ein" -DS=8 -D H=2
expect 0 "info -- operand" -- "$EINZK" info -- "$work/m.einc"
echo "cli_args: --opt=value, -oVALUE and -- work"

# usage errors: exit 2, the problem named
expect_usage "check, -D twice" "param 'S' is set twice" -- "$EINZK" check "$src" -D S=4 -D S=4
expect_usage "compile, -D twice" "param 'S' is set twice" -- "$EINZK" compile "$src" -DS=4 -D S=5 -o "$work/x.einc"
expect_usage "malformed -D" "malformed -D" -- "$EINZK" check "$src" -D S
expect_usage "unknown option" "unknown option '--jsn'; did you mean '--json'" -- "$EINZK" info "$work/m.einc" --jsn
expect_usage "missing value" "--seed needs a value" -- "$EINZK" gen "$work/m.einc" --weights a --input b --seed
expect_usage "missing required" "missing --seed" -- "$EINZK" gen "$work/m.einc" --weights a --input b
expect_usage "missing operand" "missing MODEL.einc" -- "$EINZK" setup --weights a --vk b --pk c
expect_usage "two operands" "more than one proof or certificate" -- "$EINZK" verify --vk a p1 p2
expect_usage "given twice" "--json is given twice" -- "$EINZK" info "$work/m.einc" --json --json
expect_usage "value to a flag" "--json takes no value" -- "$EINZK" info "$work/m.einc" --json=yes
expect_usage "bad number" "--threads needs a whole number" -- "$EINZK" verify --vk a p --threads 0
expect_usage "pk and weights" "one of --pk and --weights" -- "$EINZK" prove "$work/m.einc" --input i -o p
expect_usage "unknown command" "did you mean 'prove'" -- "$EINZK" provee
expect_usage "help for an unknown command" "unknown command 'nope'" -- "$EINZK" help nope
echo "cli_args: usage errors exit 2 and name the problem"
