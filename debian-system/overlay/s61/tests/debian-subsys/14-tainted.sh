#!/bin/bash
# The kernel is not tainted after the suite: every module it loaded (file
# systems, dm, md, bcache, zram, binder, virtio_balloon) is Debian's own
# and signed, and no warning fired.
. /s61/lib.sh
v=$(cat /proc/sys/kernel/tainted)
echo "tainted: $v"
echo "modules: $(awk '{ print $1 }' /proc/modules | sort | tr '\n' ' ')"
[ "$v" = 0 ] || fail "tainted $v: flags $(awk -v v="$v" 'BEGIN { s = "PFSRMBUDAWCIOELKXTN"
	for (b = 0; b < length(s); b++) { if (int(v / 2 ^ b) % 2) printf "%s(bit %d) ", substr(s, b + 1, 1), b } }')"
pass
