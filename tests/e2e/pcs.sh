#!/bin/sh
# pcs — the commitment scheme is chosen at setup and fixed by the vk: WHIR (default) and
# Ligero both prove and verify; a proof whose advice is committed under the other scheme
# is rejected; --pcs values, --pcs with --pk, --vk equal to --pk and unwritable output
# paths are refused before any work.
set -eu
me=pcs
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
src="$top_srcdir/examples/linear.ein"
expect 0 "compile" -- "$EINZK" compile "$src" -o "$work/m.einc"
expect 0 "gen" -- "$EINZK" gen "$work/m.einc" --seed 2 --weights "$work/w.st" --input "$work/in.json"
for s in whir ligero; do
    expect 0 "setup $s" -- "$EINZK" setup "$work/m.einc" --weights "$work/w.st" --vk "$work/$s.vk" --pk "$work/$s.pk" \
        --pcs "$s"
    expect 0 "prove $s" -- "$EINZK" prove "$work/m.einc" --pk "$work/$s.pk" --input "$work/in.json" -o "$work/$s.proof"
    expect 0 "verify $s" -- "$EINZK" verify --vk "$work/$s.vk" "$work/$s.proof"
done
expect 0 "setup default" -- "$EINZK" setup "$work/m.einc" --weights "$work/w.st" --vk "$work/d.vk" --pk "$work/d.pk"
cmp -s "$work/d.vk" "$work/whir.vk" || fail "the default scheme is not WHIR"
expect 1 "ligero proof, whir vk" -- "$EINZK" verify --vk "$work/whir.vk" "$work/ligero.proof"
expect 1 "whir proof, ligero vk" -- "$EINZK" verify --vk "$work/ligero.vk" "$work/whir.proof"
echo "pcs: whir and ligero prove and verify; a proof of the other scheme is rejected"
expect 2 "--pcs foo" -- "$EINZK" setup "$work/m.einc" --weights "$work/w.st" --vk "$work/x.vk" --pk "$work/x.pk" --pcs foo
expect 2 "--pcs with --pk" -- "$EINZK" prove "$work/m.einc" --pk "$work/whir.pk" --pcs ligero --input "$work/in.json" \
    -o "$work/x.proof"
expect 2 "--vk = --pk" -- "$EINZK" setup "$work/m.einc" --weights "$work/w.st" --vk "$work/x.key" --pk "$work/x.key"
expect 4 "setup into a missing directory" -- "$EINZK" setup "$work/m.einc" --weights "$work/w.st" \
    --vk "$work/none/x.vk" --pk "$work/x.pk"
expect 4 "prove into a missing directory" -- "$EINZK" prove "$work/m.einc" --pk "$work/whir.pk" \
    --input "$work/in.json" -o "$work/none/x.proof"
grep -q "does not exist" "$work/err.txt" || fail "the missing directory is not named"
[ ! -e "$work/x.pk" ] || fail "setup wrote the pk although the vk path is bad"
echo "pcs: bad --pcs, --pcs with --pk, --vk = --pk and unwritable outputs are refused up front"
