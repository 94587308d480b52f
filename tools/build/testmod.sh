#!/usr/bin/env bash
# Build the out-of-tree test module (testmod/) against a kernel build tree.
#
# Usage: tools/build/testmod.sh --build BUILD [--force] [--old-api] [--name NAME]
#                      [--install DIR]
#   BUILD      a kbuild output directory (O=), e.g. .work/build/boot, or the
#              name of one under .work/build/; it must have been built from
#              the commit the kernel checkout is at now (tools/build/kbuild.sh does
#              both), or at least with the same headers
#   --force    build even when the headers differ from the built kernel's
#   --old-api  the register_shrinker() path even where the new API exists
#              (S61_FORCE_OLD_API=y; only links on base..conv-drivers)
#   --name NAME  build the same source as module NAME (NAME.ko), in its own
#              directory: a second module with a shrinker, which the
#              benchmarks load while the first one holds its shrinker
#   --install DIR  then install it with kbuild's own modules_install, as
#              DIR/lib/modules/KVER/updates/NAME.ko (INSTALL_MOD_DIR=updates;
#              no depmod): kbuild signs it as it signs the kernel's own
#              modules (CONFIG_MODULE_SIG_ALL), and that signature is checked
# Runs make -C <checkout> O=BUILD M=BUILD/s61-testmod/src modules on a fresh
# copy of testmod/ and prints the path of the .ko (the installed one with
# --install) on stdout.
# Exit: 0 built, 1 error, 2 skip (the kernel has no module support).
. "$(dirname "$0")/../lib/lib.sh"

build=
force=0
old_api=
install=
name=s61_shrinker_test
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--build) build=${2:?--build needs a build directory}; shift ;;
	--build=*) build=${1#*=} ;;
	--force) force=1 ;;
	--old-api) old_api=y ;;
	--name) name=${2:?--name needs a module name}; shift ;;
	--install) install=${2:?--install needs a directory to install into}; shift ;;
	--install=*) install=${1#*=} ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
[ -n "$build" ] || die "which build directory? (--build BUILD, see --help)"
case $name in
[a-z]*[!a-z0-9_]*|[!a-z]*) die "--name wants a module name of lower-case letters, digits and '_', not '$name'" ;;
esac
if [ -n "$install" ]; then
	case $install in
	*[:%]*) die "--install: kbuild refuses a path with ':' or '%' in it ('$install'); pick another directory" ;;
	esac
	case $install in /*) ;; *) install=$PWD/$install ;; esac
fi
if [ ! -d "$build" ] && [ -d "$S61_WORK/build/$build" ]; then
	build=$S61_WORK/build/$build
fi
[ -d "$build" ] || die "no build directory $build"
build=$(cd "$build" && pwd)
require_checkout
command -v ccache >/dev/null || die "ccache is missing; run tools/build/deps.sh"

[ -f "$build/.config" ] || die "$build has no .config; build a kernel there first (tools/build/kbuild.sh)"
if ! grep -qx 'CONFIG_MODULES=y' "$build/.config"; then
	echo "SKIP: kernel has no module support (CONFIG_MODULES is off in $build/.config)" >&2
	exit 2
fi
# vmlinux.symvers: the kernel's exports (tools/build/kbuild.sh's trees keep it);
# Module.symvers: those and the modules' (a bindeb-pkg tree has only this).
if [ ! -x "$build/scripts/mod/modpost" ] ||
	{ [ ! -f "$build/vmlinux.symvers" ] && [ ! -f "$build/Module.symvers" ]; }; then
	die "$build is not built (no scripts/mod/modpost, or neither vmlinux.symvers nor Module.symvers); run tools/build/kbuild.sh first"
fi

# The module is compiled with the checkout's headers: they must be those
# the kernel in $build was built from (s61-build-info: "<commit> <desc> ...").
head=$(kgit rev-parse HEAD)
built=
[ -f "$build/s61-build-info" ] && read -r built _ <"$build/s61-build-info"
hdrs=(include arch/x86/include)
if [ -z "$built" ]; then
	warn "$build has no s61-build-info; cannot check that the checkout matches the built kernel"
elif [ "$built" != "$head" ] && ! kgit diff --quiet "$built" "$head" -- "${hdrs[@]}"; then
	msg="$build was built from ${built:0:12} but the checkout is at ${head:0:12}, with other headers"
	[ $force = 1 ] || die "$msg; rebuild it (tools/build/kbuild.sh) or pass --force"
	warn "$msg (--force)"
fi
if ! kgit diff --quiet HEAD -- "${hdrs[@]}"; then
	warn "the checkout has uncommitted header changes; the module sees them"
fi

tdir=$build/s61-testmod
[ "$name" = s61_shrinker_test ] || tdir=$build/s61-testmod-$name
src=$tdir/src
log=$tdir/build.log
rm -rf "$tdir"
mkdir -p "$src"
: >"$log"
cp -a "$S61_ROOT/testmod/." "$src/" || die "cannot copy testmod/ to $src"
if [ "$name" != s61_shrinker_test ]; then
	# One object, linked into a module of another name.
	grep -qx 'obj-m := s61_shrinker_test.o' "$src/Kbuild" ||
		die "testmod/Kbuild has no 'obj-m := s61_shrinker_test.o' line to rename for --name"
	sed -i "s/^obj-m := s61_shrinker_test\.o\$/obj-m := $name.o\n$name-y := s61_shrinker_test.o/" "$src/Kbuild"
fi

# As tools/build/kbuild.sh: same paths and stamps in every clone, for ccache hits.
export CCACHE_BASEDIR=$S61_WORK CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
mk=(make -C "$S61_LINUX" O="$build" M="$src" CC="ccache gcc" HOSTCC="ccache gcc")
[ -n "$old_api" ] && mk+=(S61_FORCE_OLD_API=y)
# tools/build/kbuild.sh runs "make modules" only for configs with =m modules: without
# Module.symvers, resolve the kernel's exports from vmlinux.symvers.
[ -f "$build/Module.symvers" ] || mk+=(KBUILD_EXTRA_SYMBOLS="$build/vmlinux.symvers")

# The same: the module linker script comes from "make modules_prepare". If
# the tree lacks it, make one here from the checkout's scripts/module.lds.S
# (a kbuild single target in a directory of ours; the tree stays untouched).
if [ ! -f "$build/scripts/module.lds" ] && [ -f "$S61_LINUX/scripts/module.lds.S" ]; then
	lds=$tdir/lds
	mkdir -p "$lds"
	cp "$S61_LINUX/scripts/module.lds.S" "$lds/" || die "cannot set up $lds"
	: >"$lds/Kbuild"
	make -C "$S61_LINUX" O="$build" M="$lds" CC="ccache gcc" module.lds >"$log" 2>&1 ||
		{ tail -n 15 "$log" >&2; die "cannot make the module linker script; log: $log"; }
	mk+=(ARCH_MODULE_LDS="$lds/module.lds")
fi

info "building testmod/ as $name.ko against $build (checkout ${head:0:12}${old_api:+, old API forced})"
if ! "${mk[@]}" modules >>"$log" 2>&1; then
	echo "---- last lines of $log ----" >&2
	tail -n 25 "$log" >&2
	die "the test module did not build against $build; full log: $log"
fi
# modpost only warns about unresolved symbols when Module.symvers is missing.
if grep -E 'undefined!|ERROR: modpost' "$log" >&2; then
	die "the test module uses symbols the kernel in $build does not export (see above; log: $log)"
fi
ko=$src/$name.ko
[ -f "$ko" ] || die "make succeeded but there is no $ko; log: $log"
info "built $(modinfo -F vermagic "$ko" 2>/dev/null || echo "$ko")"
[ -n "$install" ] || { echo "$ko"; exit 0; }

# kbuild's modules_install for an external module: copy to
# MODLIB/INSTALL_MOD_DIR, strip only with INSTALL_MOD_STRIP (bindeb-pkg
# sets none for the kernel's own), sign with the tree's key when
# CONFIG_MODULE_SIG_ALL=y (scripts/Makefile.modinst). DEPMOD=true: the
# package's postinst runs depmod on the target.
mkdir -p "$install" || die "--install: cannot make the directory $install; pick a writable one"
kver=$(cat "$build/include/config/kernel.release" 2>/dev/null) ||
	die "$build has no include/config/kernel.release; run tools/build/kbuild.sh first"
if "${mk[@]}" INSTALL_MOD_PATH="$install" INSTALL_MOD_DIR=updates DEPMOD=true \
	modules_install >>"$log" 2>&1; then :; else
	tail -n 15 "$log" >&2
	die "modules_install of $name.ko into $install failed; full log: $log"
fi
iko=$install/lib/modules/$kver/updates/$name.ko
[ -f "$iko" ] || die "modules_install succeeded but there is no $iko; log: $log"
# Makefile.modinst ignores a failed sign-file for external modules ("|| true"):
# check that the signature is there.
if grep -qx 'CONFIG_MODULE_SIG_ALL=y' "$build/.config"; then
	[ "$(tail -c 28 "$iko")" = "~Module signature appended~" ] ||
		die "$iko is not signed though CONFIG_MODULE_SIG_ALL=y (is $build/certs/signing_key.pem there?); log: $log"
fi
info "installed $iko${kver:+ ($kver)}"
echo "$iko"
