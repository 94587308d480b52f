#!/usr/bin/env bash
# Tests of tools/debian/deb-check.sh (issue #27), the host-side check of the
# test module's package that tools/debian/deb.sh runs after dpkg-deb: on
# synthetic .debs (dpkg-deb from crafted trees) it passes a good
# s61-testmod package and fails each broken one (an unsigned .ko, a
# signature magic with no signature, a wrong Depends version, the aux .ko
# missing, a wrong vermagic, a postinst without depmod), naming what is
# wrong; a module signed by a key other than that of the kernel's own
# modules, or an image without a module to take the key from, fails; it
# refuses bad arguments (exit 2) and leaves no temporary
# directory. The fake .ko files are ELF objects from gcc with a .modinfo
# section (modinfo reads their vermagic), signed as scripts/sign-file signs
# (a detached PKCS#7 from openssl cms, the module_signature trailer and the
# magic) with a key made here. And tools/build/testmod.sh refuses a bad --install
# before it builds or makes anything. Nothing is built against a kernel.
#
# "seen failing on:" names the deliberate breakage each check was seen to
# catch (tools/debian/deb-check.sh, or tools/build/testmod.sh, broken in a scratch
# copy, this test run against it; 2026-12-06, 25 breaks; S61_DEB_CHECK
# names the check to test).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
chk=${S61_DEB_CHECK:-$here/tools/debian/deb-check.sh}
KVER=6.1.192-s61
VER=6.1.192-3+s61.fce2b219
VM="$KVER SMP preempt mod_unload modversions "

# rc_is N CMD...: CMD (output in $t/out) exits with N.
rc_is() {
	local want=$1 rc=0
	shift
	"$@" >"$t/out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want" >>"$t/out"; return 1; }
}

# The signing key, as certs/signing_key.pem of a build.
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout "$t/key.pem" -out "$t/cert.pem" \
	-days 2 -subj '/CN=s61 test key' >/dev/null 2>&1 || { echo "cannot make a test key with openssl"; exit 1; }
# Another build's key (its subject the same: only the key id tells them
# apart), for a module the kernel cannot verify.
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout "$t/other-key.pem" -out "$t/other-cert.pem" \
	-days 2 -subj '/CN=s61 test key' >/dev/null 2>&1 || { echo "cannot make a test key with openssl"; exit 1; }
# mkko FILE NAME VERMAGIC SIGN: an ELF object with the .modinfo of module
# NAME; SIGN: sign (a PKCS#7 signature, as sign-file appends it), none, or
# magic (the trailer and the magic only, no signature in it). The key is
# $t/key.pem, or $t/other-key.pem with KEY=other- (a caller's variable).
mkko() {
	local c=$t/ko.c n
	printf 'static const char a[] __attribute__((section(".modinfo"), used, aligned(1))) = "%s";\n' \
		"vermagic=$3" "name=$2" | sed '2s/ a\[\]/ b[]/' >"$c"
	gcc -c -o "$1" "$c" || return 1
	case $4 in
	none) return 0 ;;
	sign)
		openssl cms -sign -in "$1" -signer "$t/${KEY:-}cert.pem" -inkey "$t/${KEY:-}key.pem" -binary -noattr \
			-nocerts -nosmimecap -md sha256 -outform DER -out "$t/sig" || return 1
		cat "$t/sig" >>"$1"
		n=$(stat -c %s "$t/sig") ;;
	magic) n=0 ;;
	esac
	# struct module_signature: algo, hash, id_type 2 (PKCS#7), signer_len,
	# key_id_len, 3 pad bytes, sig_len (big endian); then the magic.
	{
		printf '\0\0\2\0\0\0\0\0'
		printf '%b' "$(printf '\\0%03o' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))"
		printf '~Module signature appended~\n'
	} >>"$1"
}
# pkg NAME [VAR=VALUE...]: $t/NAME.deb, an s61-testmod package as
# tools/debian/deb.sh makes it, changed by the VARs: PKG, PVER, DEP (the
# Depends line), MODS (the modules in it), VMAGIC, SIGN and KEY (of mkko),
# POSTINST (its body; "none": no postinst).
pkg() {
	local name=$1 r PKG=s61-testmod-$KVER PVER=$VER DEP="linux-image-$KVER (= $VER)" KEY=''
	local MODS="s61_shrinker_test s61_shrinker_aux" VMAGIC=$VM SIGN=sign POSTINST="depmod -a $KVER" m
	shift
	[ $# = 0 ] || local "$@"
	r=$t/root-$name
	rm -rf "$r"
	mkdir -p "$r/DEBIAN" "$r/lib/modules/$KVER/updates"
	for m in $MODS; do
		mkko "$r/lib/modules/$KVER/updates/$m.ko" "$m" "$VMAGIC" "$SIGN" || return 1
	done
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@invalid>\nDepends: %s\nDescription: test\n' \
		"$PKG" "$PVER" "$DEP" >"$r/DEBIAN/control"
	if [ "$POSTINST" != none ]; then
		printf '#!/bin/sh\nset -e\n%s\n' "$POSTINST" >"$r/DEBIAN/postinst"
		chmod 0755 "$r/DEBIAN/postinst"
	fi
	dpkg-deb --root-owner-group --build "$r" "$t/$name.deb" >/dev/null
}
# The kernel's package: its name and version are what the check takes,
# and the key of its own module (lib/modules/KVER/kernel/, signed with
# $t/key.pem as the build signs them), the kernel's key. image-nomod.deb
# has no module.
mkdir -p "$t/img/DEBIAN"
printf 'Package: linux-image-%s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@invalid>\nDescription: kernel\n' \
	"$KVER" "$VER" >"$t/img/DEBIAN/control"
dpkg-deb --root-owner-group --build "$t/img" "$t/image-nomod.deb" >/dev/null
mkdir -p "$t/img/lib/modules/$KVER/kernel/fs/xfs"
mkko "$t/img/lib/modules/$KVER/kernel/fs/xfs/xfs.ko" xfs "$VM" sign || { echo "cannot make the kernel's module"; exit 1; }
dpkg-deb --root-owner-group --build "$t/img" "$t/image.deb" >/dev/null
IMG=$t/image.deb
export TMPDIR=$t/tmp
mkdir -p "$TMPDIR"
run() { rc_is "$1" "$chk" "$t/$2.deb" "$IMG"; }
# fails_for NAME PATTERN: $t/NAME.deb fails the check (exit 1) and every
# FAIL line matches PATTERN: it fails for that reason and no other.
fails_for() {
	run 1 "$1" || return 1
	grep -q '^FAIL' "$t/out" && ! grep '^FAIL' "$t/out" | grep -qv -- "$2"
}

# ---- the package tools/debian/deb.sh makes ----------------------------------
pkg good
# seen failing on: 'modinfo -F signer' misspelt (no signer found); the
# Depends field matched whole (not as one of its ", " items).
expect "good: the package as tools/debian/deb.sh makes it holds (exit 0)" run 0 good
says "good: every check named ok, signer and hash shown" "ok   Package: s61-testmod-$KVER" \
	"ok   Depends: linux-image-$KVER (= $VER)" "ok   s61_shrinker_aux.ko: /lib/modules/$KVER/updates/s61_shrinker_aux.ko" \
	"ok   s61_shrinker_test.ko: vermagic $KVER SMP" "signed by 's61 test key', sha256" \
	"ok   postinst: depmod -a $KVER" "all checks hold"
pkg extra DEP="kmod, linux-image-$KVER (= $VER)" POSTINST="[ -x /sbin/depmod ] && depmod -a $KVER || true"
# seen failing on: the Depends field matched whole (another dependency
# beside the kernel's).
expect "good: another dependency beside the kernel and a guarded depmod hold too" run 0 extra
# seen failing on: the trap removed (the extracted tree left in TMPDIR).
expect "good: no temporary directory left" test -z "$(ls -A "$TMPDIR")"

# ---- the signer is the kernel's own key (issue 38 §2) ----------------------
# seen failing with: the old debian-deb-check (HEAD a5d335a's: "a
# signer" enough, no kernel key; it also passed the three checks below).
run 0 good
says "good: the kernel's key named, each module's key found the kernel's" \
	"ok   kernel key: 's61 test key', key " "ok   s61_shrinker_test.ko: signed by 's61 test key', sha256, key " ": the kernel's"
pkg otherkey KEY=other-
# seen failing with: the key comparison removed ("elif false"); the key
# id not compared, the signer's name alone (both keys are "s61 test key").
expect "a module signed by another key (same subject): fails (exit 1), for that only" fails_for otherkey ": not the kernel's key"
says "another key: says the kernel cannot verify it" "FAIL s61_shrinker_test.ko: signed by 's61 test key', key " "the kernel cannot verify it (taint E)"
# seen failing with: debian-deb-check's "has no module" flunk made a pass
# (the modules still failed, "the kernel's key is unknown", but the
# image's own fault unsaid).
rc_is 1 "$chk" "$t/good.deb" "$t/image-nomod.deb"
expect "an image without a module of its own: fails (exit 1), no key to compare with" test $? = 0
says "an image without a module: says so" "FAIL kernel key: image-nomod.deb has no module under /lib/modules/$KVER/kernel/"

# ---- broken packages: each one fails, naming what is wrong ---------------
pkg unsigned SIGN=none
# seen failing on: the magic check removed; "exit 1" at the end made
# "exit 0" (the same break caught by every "exit 1" check below).
expect "unsigned .ko: fails (exit 1), for that only" fails_for unsigned ": unsigned"
says "unsigned .ko: says so" "FAIL s61_shrinker_test.ko: unsigned" "FAIL s61_shrinker_aux.ko: unsigned"
if [[ $(modinfo --version) == *+LIBCRYPTO* ]]; then
	pkg magic SIGN=magic
	# seen failing on: the signer check removed (the magic alone taken).
	expect "magic with no signature: fails (exit 1), for that only" fails_for magic "no signer"
	says "magic with no signature: says no signer" "modinfo finds no signer"
else
	ok "# SKIP magic with no signature: this modinfo reads no signatures (kmod -LIBCRYPTO)"
fi
pkg depver DEP="linux-image-$KVER (= 6.1.192-3+s61.00000000)"
# seen failing on: Depends checked for "linux-image-KVER " only.
expect "wrong Depends version: fails (exit 1), for that only" fails_for depver "^FAIL Depends"
says "wrong Depends version: names the one wanted" "FAIL Depends: 'linux-image-$KVER (= 6.1.192-3+s61.00000000)' has no 'linux-image-$KVER (= $VER)'"
pkg depge DEP="linux-image-$KVER (>= $VER)"
# seen failing on: "(>= VERSION)" accepted beside "(= VERSION)";
# Depends checked for "linux-image-KVER " only.
expect "Depends '>=' instead of '=': fails (exit 1), for that only" fails_for depge "^FAIL Depends"
pkg noaux MODS=s61_shrinker_test
# seen failing on: the loop over the modules taking only the first.
expect "missing aux .ko: fails (exit 1), for that only" fails_for noaux "^FAIL s61_shrinker_aux.ko: not in the package"
says "missing aux .ko: names its path" "FAIL s61_shrinker_aux.ko: not in the package as /lib/modules/$KVER/updates/s61_shrinker_aux.ko"
pkg vmbase VMAGIC="${KVER}base SMP preempt mod_unload modversions "
# seen failing on: the vermagic pattern "$kver"* (no space: the base
# kernel's 6.1.192-s61base taken for 6.1.192-s61); the vermagic check
# removed.
expect "wrong vermagic (the base kernel's 6.1.192-s61base): fails (exit 1), for that only" fails_for vmbase ": vermagic"
says "wrong vermagic: says whose it is not" "FAIL s61_shrinker_test.ko: vermagic '${KVER}base SMP" "is not $KVER's"
pkg vmold VMAGIC="6.1.0-13-amd64 SMP preempt mod_unload modversions "
# seen failing on: the vermagic check removed.
expect "wrong vermagic (Debian's 6.1.0-13-amd64): fails (exit 1), for that only" fails_for vmold ": vermagic '6.1.0-13-amd64"
pkg nodepmod POSTINST="echo installed"
# seen failing on: the postinst check passing whenever the file exists.
expect "postinst without depmod: fails (exit 1), for that only" fails_for nodepmod "^FAIL postinst"
says "postinst without depmod: says so" "FAIL postinst: no 'depmod -a $KVER' in it"
pkg comment POSTINST="# depmod -a $KVER"
# seen failing on: the postinst grep without '^[^#]*\b' (a comment taken).
expect "postinst with depmod only in a comment: fails (exit 1), for that only" fails_for comment "^FAIL postinst"
pkg otherkver POSTINST="depmod -a ${KVER}base"
# seen failing on: the end of the release unchecked after "depmod -a KVER".
expect "postinst running depmod for another release: fails (exit 1), for that only" fails_for otherkver "^FAIL postinst"
pkg nopostinst POSTINST=none
# seen failing on: the missing-postinst branch removed (then grep's
# error on the missing file, and the wrong message).
expect "no postinst: fails (exit 1), for that only" fails_for nopostinst "^FAIL postinst: none"
says "no postinst: says so" "FAIL postinst: none"
pkg name PKG=s61-testmod-6.1.192-s61base
# seen failing on: the Package check removed.
expect "package of another release's name: fails (exit 1), for that only" fails_for name "^FAIL Package"
pkg ver PVER=6.1.192-3+s61.00000000
# seen failing on: the Version check removed.
expect "package of another version: fails (exit 1), for that only" fails_for ver "^FAIL Version"
# seen failing on: the trap removed.
expect "broken packages: no temporary directory left" test -z "$(ls -A "$TMPDIR")"

# ---- arguments --------------------------------------------------------------
# seen failing on: the argument count unchecked (the empty second
# argument refused as a missing file, without the usage).
expect "args: one .deb only is refused (exit 2)" rc_is 2 "$chk" "$t/good.deb"
says "args: one .deb: says what it wants" "want TESTMOD.deb IMAGE.deb"
# seen failing on: the missing-file check removed (then "is not a .deb",
# the same exit status).
expect "args: a missing file is refused (exit 2)" rc_is 2 "$chk" "$t/nope.deb" "$IMG"
says "args: a missing file: names it and where the .debs are" "$t/nope.deb: no such file" ".work/debs/"
# seen failing on: the dpkg-deb -f check removed.
expect "args: a file that is no .deb is refused (exit 2)" rc_is 2 "$chk" "$t/good.deb" "$t/key.pem"
says "args: no .deb: says so" "is not a .deb"
# seen failing on: the image's package name not checked (KVER taken from
# whatever package comes second).
expect "args: the two .debs swapped are refused (exit 2)" rc_is 2 "$chk" "$IMG" "$t/good.deb"
says "args: swapped: names the package and the order" "is package 's61-testmod-$KVER', not a kernel" "TESTMOD.deb first"
# seen failing on: --help not matched.
expect "args: --help prints the usage (exit 0)" rc_is 0 "$chk" --help
says "args: --help names both .debs" "Usage: tools/debian/deb-check.sh TESTMOD.deb IMAGE.deb"

# ---- tools/build/testmod.sh --install: refused before anything is made ------------
tm=$here/tools/build/testmod.sh
# seen failing on: the ':'/'%' refusal removed (then "no build directory"
# with the same exit status: the message check catches it).
expect "testmod: --install with a ':' in it is refused (exit 1)" rc_is 1 "$tm" --build "$t/nobuild" --install "$t/a:b"
says "testmod: --install with ':': names the path and why" "kbuild refuses a path with ':' or '%' in it ('$t/a:b')"
expect "testmod: --install without a directory is refused (exit 1)" rc_is 1 "$tm" --build "$t/nobuild" --install
says "testmod: --install without a directory: says so" "--install needs a directory to install into"
expect "testmod: --install DIR with no build directory is refused (exit 1)" rc_is 1 "$tm" --build "$t/nobuild" --install "$t/inst"
says "testmod: no build directory: named" "no build directory $t/nobuild"
# seen failing on: DIR made right after the arguments are read.
expect "testmod: ... and DIR not made" test ! -e "$t/inst"
# seen failing on: the --help range left at lines 2-17 (the options
# after --name cut off).
"$tm" --help >"$t/out" 2>&1
says "testmod: --help shows --install" "--install DIR" "modules_install" "Exit: 0 built, 1 error, 2 skip"

echo "1..$((pass + fail))"
echo "debian-deb-check-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
