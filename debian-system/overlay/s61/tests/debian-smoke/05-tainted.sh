#!/bin/bash
# The kernel is not tainted (/proc/sys/kernel/tainted is 0) after the suite:
# no warning, no out-of-tree or unsigned module, no forced load.
. /s61/lib.sh
v=$(cat /proc/sys/kernel/tainted)
echo "tainted: $v"
[ "$v" = 0 ] || fail "tainted $v: flags $(awk -v v="$v" 'BEGIN { s = "PFSRMBUDAWCIOELKXTN"
	for (b = 0; b < length(s); b++) { if (int(v / 2 ^ b) % 2) printf "%s(bit %d) ", substr(s, b + 1, 1), b } }')(Documentation/admin-guide/tainted-kernels.rst)"
pass
