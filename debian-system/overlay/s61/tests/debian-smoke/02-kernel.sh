#!/bin/bash
# The running kernel is the one the host booted (s61.kver=, from
# tools/debian/boot.sh --kver) and a package of the image installed it.
. /s61/lib.sh
want=$(cmdline_arg s61.kver)
got=$(uname -r)
echo "uname -r: $got; expected (s61.kver): ${want:-none}"
[ -n "$want" ] || fail "no s61.kver= on the kernel command line: the host did not say which kernel it booted"
[ "$got" = "$want" ] || fail "running $got, the host booted $want"
pkg=$(dpkg -S "/boot/vmlinuz-$got" 2>/dev/null | cut -d: -f1)
[ -n "$pkg" ] || fail "no package of the image owns /boot/vmlinuz-$got"
echo "package: $pkg $(dpkg-query -W -f='${Version}' "$pkg")"
echo "initrd: /boot/initrd.img-$got, $(stat -c %s "/boot/initrd.img-$got") bytes"
pass
