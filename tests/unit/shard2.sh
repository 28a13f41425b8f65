#!/bin/sh
# Shard 2 of the unit runner (tests/check_main.c): make check runs the shards side by side.
exec env EZ_TEST_SHARD=2/3 "${top_builddir:-.}/tests/check_einzk"
