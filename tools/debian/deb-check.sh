#!/usr/bin/env bash
# Check the test module's package against its kernel's, on the host (issue
# 27): tools/debian/deb.sh runs it right after it packs s61-testmod-KVER, and
# fails the build if it does not hold.
#
# Usage: tools/debian/deb-check.sh TESTMOD.deb IMAGE.deb
#   TESTMOD.deb  the s61-testmod-KVER package
#   IMAGE.deb    the linux-image-KVER package it goes with (KVER and the
#                version are taken from it)
# What must hold: the package is s61-testmod-KVER, of the image's version,
# "Depends: linux-image-KVER (= VERSION)"; it holds s61_shrinker_test.ko
# and s61_shrinker_aux.ko under /lib/modules/KVER/updates/; each one's
# vermagic (modinfo) is KVER and its options ("KVER " at its start); each
# one is signed by the kernel's own key: "~Module signature appended~"
# ends the file, and its signer and key id (modinfo, which must read
# signatures: kmod +LIBCRYPTO) are those of the kernel's own modules in
# IMAGE.deb (lib/modules/KVER/kernel/, signed at the build with the key
# whose certificate the kernel has built in: CONFIG_MODULE_SIG_ALL); a
# module signed by another key is one the kernel cannot verify, and
# loading it taints the kernel E; the postinst runs "depmod -a KVER".
# Each check prints "ok" or "FAIL" on stdout.
# Exit: 0 all hold, 1 one or more do not, 2 bad arguments.
. "$(dirname "$0")/../lib/lib.sh"

usage_err() { printf 'debian-deb-check: error: %s\n' "$*" >&2; exit 2; }
case ${1:-} in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
[ $# = 2 ] || usage_err "want TESTMOD.deb IMAGE.deb, got $# argument(s) (see --help)"
tm=$1 img=$2
for f in "$tm" "$img"; do
	[ -f "$f" ] || usage_err "$f: no such file (the .debs of 'make deb' are in .work/debs/)"
	dpkg-deb -f "$f" Package >/dev/null 2>&1 || usage_err "$f is not a .deb (dpkg-deb cannot read it)"
done
ipkg=$(dpkg-deb -f "$img" Package)
case $ipkg in
linux-image-*-dbg) usage_err "$img is the debug symbols ($ipkg), not the kernel: give the linux-image-KVER .deb" ;;
linux-image-?*) kver=${ipkg#linux-image-} ;;
*) usage_err "$img is package '$ipkg', not a kernel (linux-image-KVER): TESTMOD.deb first, then IMAGE.deb" ;;
esac
ver=$(dpkg-deb -f "$img" Version)

nfail=0
pass() { echo "ok   $*"; }
flunk() { echo "FAIL $*"; nfail=$((nfail + 1)); }
# is WHAT GOT WANT: one check that GOT is WANT.
is() { if [ "$2" = "$3" ]; then pass "$1: $2"; else flunk "$1: '$2', want '$3'"; fi; }

is Package "$(dpkg-deb -f "$tm" Package)" "s61-testmod-$kver"
is Version "$(dpkg-deb -f "$tm" Version)" "$ver"
dep=$(dpkg-deb -f "$tm" Depends)
want="linux-image-$kver (= $ver)"
case ", $dep," in
*", $want,"*) pass "Depends: $dep" ;;
*) flunk "Depends: '$dep' has no '$want'" ;;
esac

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -c "$tm" >"$tmp/list" || die "dpkg-deb -c $tm failed"
dpkg-deb -x "$tm" "$tmp/root" || die "dpkg-deb -x $tm failed"
dpkg-deb -e "$tm" "$tmp/ctl" || die "dpkg-deb -e $tm failed"

magic='~Module signature appended~'
sigs=0
[[ $(modinfo --version 2>/dev/null) == *+LIBCRYPTO* ]] && sigs=1
kre=${kver//./[.]} kre=${kre//+/[+]}
# The kernel's key: the signer and key id of the first module of the
# kernel's own package.
ksigner='' kkey='' kmod=''
if [ $sigs = 0 ]; then
	flunk "kernel key: this modinfo reads no signatures (kmod -LIBCRYPTO): the modules' signer cannot be compared with the kernel's key; run on a host whose kmod has +LIBCRYPTO (modinfo --version)"
elif ! kmod=$(dpkg-deb -c "$img" | grep -oE "\./lib/modules/$kre/kernel/[^ ]+\.ko(\.xz|\.zst)?\$" | head -n 1) || [ -z "$kmod" ]; then
	flunk "kernel key: ${img##*/} has no module under /lib/modules/$kver/kernel/ to take the kernel's key from"
elif ! dpkg-deb --fsys-tarfile "$img" | tar -xf - -C "$tmp" "$kmod" 2>"$tmp/err"; then
	flunk "kernel key: cannot extract $kmod from ${img##*/}: $(tr '\n' ' ' <"$tmp/err")"
else
	ksigner=$(modinfo -F signer "$tmp/$kmod" 2>/dev/null) kkey=$(modinfo -F sig_key "$tmp/$kmod" 2>/dev/null)
	if [ -z "$ksigner" ] || [ -z "$kkey" ]; then
		flunk "kernel key: the kernel's module ${kmod#./} is not signed: no key to compare with"
		ksigner='' kkey=''
	else
		pass "kernel key: '$ksigner', key $kkey (its module ${kmod#./})"
	fi
fi
for name in s61_shrinker_test s61_shrinker_aux; do
	rel=lib/modules/$kver/updates/$name.ko
	ko=$tmp/root/$rel
	if ! grep -qE "^-.* \./$rel\$" "$tmp/list" || [ ! -f "$ko" ]; then
		flunk "$name.ko: not in the package as /$rel"
		continue
	fi
	pass "$name.ko: /$rel"
	vm=$(modinfo -F vermagic "$ko" 2>"$tmp/err") ||
		vm="(modinfo: $(tr '\n' ' ' <"$tmp/err"))"
	case $vm in
	"$kver "*) pass "$name.ko: vermagic $vm" ;;
	*) flunk "$name.ko: vermagic '$vm' is not $kver's" ;;
	esac
	signer=$(modinfo -F signer "$ko" 2>/dev/null) key=$(modinfo -F sig_key "$ko" 2>/dev/null)
	if [ "$(tail -c 28 "$ko")" != "$magic" ]; then
		flunk "$name.ko: unsigned (no '$magic' at its end)"
	elif [ $sigs = 1 ] && [ -z "$signer" ]; then
		flunk "$name.ko: '$magic' but modinfo finds no signer in its signature"
	elif [ -z "$kkey" ]; then
		flunk "$name.ko: signed, but the kernel's key is unknown (kernel key, above): not compared"
	elif [ "$signer" != "$ksigner" ] || [ "$key" != "$kkey" ]; then
		flunk "$name.ko: signed by '$signer', key $key: not the kernel's key ('$ksigner', key $kkey): the kernel cannot verify it (taint E)"
	else
		pass "$name.ko: signed by '$signer', $(modinfo -F sig_hashalgo "$ko"), key $key: the kernel's"
	fi
done

if [ ! -f "$tmp/ctl/postinst" ]; then
	flunk "postinst: none (it must run depmod -a $kver)"
# "depmod -a KVER" as a command (not in a comment; KVER whole, its dots
# and pluses literal).
elif grep -qE "^[^#]*\bdepmod -a $kre([[:space:];&|]|\$)" "$tmp/ctl/postinst"; then
	pass "postinst: depmod -a $kver"
else
	flunk "postinst: no 'depmod -a $kver' in it"
fi

if [ $nfail = 0 ]; then
	echo "${tm##*/}: all checks hold (for ${img##*/})"
else
	echo "${tm##*/}: $nfail check(s) do not hold (for ${img##*/})"
	exit 1
fi
