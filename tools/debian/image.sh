#!/usr/bin/env bash
# A Debian 12 (bookworm) system disk image that boots with systemd as PID 1
# (issue #27): mmdebstrap --variant=apt of debian-system/packages into a
# directory, the kernels installed as a user installs them, the overlay
# debian-system/overlay/ (the s61-tests.service unit and its suites) with
# the guest helpers it shares with the initramfs suites, rootfs-overlay/s61/
# lib.sh, ktap.sh, stress-ramfs.sh (P2's runs, debian-bench's dp2) and
# bench-sample.sh (the S61BENCH line of both bench suites), then an ext4
# image made from the directory with mkfs.ext4 -d (no loop mount).
# tools/debian/boot.sh boots it.
#
# Usage: tools/debian/image.sh [options]     (prints the image's path on stdout)
#   --kernel stock   Debian's linux-image-6.1.0-57-amd64 (its build of our
#                    base, 6.1.192-3), installed with apt inside the image
#   --deb FILE...    linux-image .debs (e.g. of 'make deb'), copied into the
#                    image and installed with dpkg -i in it (Debian's
#                    initramfs-tools hook makes each initrd); repeatable;
#                    also s61-testmod-* .debs (the project's test module
#                    packaged for one of the kernels), installed with them
#                    At least one kernel: --kernel, --deb or both.
#   --free MB        free space left in the file system (default 1024)
#   --rebuild        build even if the cache has this image
#   --print-key      print the cache key of these inputs and stop
# Cache: ~/.cache/shrinker61/debian-image/KEY/ (S61_CACHE), KEY the hash of
# debian-system/packages and sources.list, this script, every file of the
# overlay and of the guest helpers, the kernel choice, --free and the
# .debs' sha256: the same inputs reuse the image in seconds. A build runs
# in a temporary directory beside it and is renamed into place at the end
# (Ctrl-C leaves no half image); one build at a time (a lock). The
# downloaded packages are kept in debian-image/apt-archives/ for the next
# build. Needs root (mmdebstrap --mode=root) and the network.
# Exit: 0 the image's path printed; 1 the build failed; 2 bad usage.
. "$(dirname "$0")/../lib/lib.sh"
set -u

STOCK=linux-image-6.1.0-57-amd64
SYS=$S61_ROOT/debian-system
PKGS=$SYS/packages
SOURCES=$SYS/sources.list
OVERLAY=$SYS/overlay
GUEST_LIB=$S61_ROOT/rootfs-overlay/s61
# The files of $GUEST_LIB the image's /s61/ gets (and the cache key hashes).
GUEST_FILES=(lib.sh ktap.sh stress-ramfs.sh bench-sample.sh)
IMGS=$S61_CACHE/debian-image

usage_err() {
	printf 'debian-image: error: %s\n' "$*" >&2
	exit 2
}

kernel='' free=1024 rebuild=0 print_key=0
debs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--kernel)
		[ $# -ge 2 ] || usage_err "--kernel needs a value: --kernel stock"
		[ "$2" = stock ] || usage_err "--kernel '$2': only 'stock' ($STOCK) is known; a kernel of ours goes in with --deb FILE"
		kernel=stock
		shift ;;
	--deb)
		if [ $# -lt 2 ] || [ "${2#-}" != "$2" ]; then
			usage_err "--deb needs at least one .deb file: --deb linux-image-...deb"
		fi
		while [ $# -ge 2 ] && [ "${2#-}" = "$2" ]; do debs+=("$2"); shift; done ;;
	--free)
		[[ ${2:-} =~ ^[0-9]+$ ]] || usage_err "--free '${2:-}': want megabytes, a whole number (e.g. --free 1024)"
		free=$2
		shift ;;
	--rebuild) rebuild=1 ;;
	--print-key) print_key=1 ;;
	*) usage_err "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[ -n "$kernel" ] || [ ${#debs[@]} -gt 0 ] ||
	usage_err "no kernel for the image: give --kernel stock, --deb FILE (a linux-image .deb) or both"
for f in "$PKGS" "$SOURCES"; do
	[ -r "$f" ] || usage_err "$f is missing: it is part of the repository (git checkout it)"
done
[ -d "$OVERLAY" ] || usage_err "$OVERLAY is missing: it is part of the repository"

# Each .deb must be a readable linux-image package for this machine, or the
# test module's package (s61-testmod-*) that goes with one.
deb_sums=()
for d in "${debs[@]}"; do
	[ -f "$d" ] || usage_err "--deb $d: no such file (give the path of a linux-image .deb, e.g. from 'make deb' or 'apt-get download $STOCK')"
	pkg=$(dpkg-deb -f "$d" Package 2>&1) ||
		usage_err "--deb $d: not a .deb (dpkg-deb -f says: $pkg)"
	case $pkg in
	linux-image-*|s61-testmod-*) ;;
	*) usage_err "--deb $d: package '$pkg' is not a kernel; give the linux-image-*.deb (and an s61-testmod-*.deb of the test module, if any; 'make deb' also makes linux-headers and linux-libc-dev: the image needs neither)" ;;
	esac
	arch=$(dpkg-deb -f "$d" Architecture)
	[ "$arch" = amd64 ] || usage_err "--deb $d: architecture '$arch', not amd64"
	deb_sums+=("$(sha256sum <"$d" | cut -d' ' -f1)")
	[ "${pkg#linux-image-}" = "$pkg" ] || deb_kernel=1
done
[ -n "$kernel" ] || [ ${#debs[@]} = 0 ] || [ -n "${deb_kernel:-}" ] ||
	usage_err "--deb ${debs[*]}: no kernel among them (an s61-testmod-*.deb goes with its kernel): add its linux-image-*.deb or --kernel stock"

# The text the cache key hashes: every input of the image.
key_inputs() {
	local f
	echo "script $(sha256sum <"$0" | cut -d' ' -f1)"
	echo "packages $(sed -e 's/#.*//' "$PKGS" | awk 'NF { print $1 }' | LC_ALL=C sort | sha256sum | cut -d' ' -f1)"
	echo "sources $(sha256sum <"$SOURCES" | cut -d' ' -f1)"
	(cd "$OVERLAY" && find . \( -type f -o -type l \) -print | LC_ALL=C sort) | while IFS= read -r f; do
		if [ -L "$OVERLAY/$f" ]; then
			echo "overlay $f -> $(readlink "$OVERLAY/$f")"
		else
			echo "overlay $f $(stat -c %a "$OVERLAY/$f") $(sha256sum <"$OVERLAY/$f" | cut -d' ' -f1)"
		fi
	done
	for f in "${GUEST_FILES[@]}"; do
		echo "guest $f $(sha256sum <"$GUEST_LIB/$f" | cut -d' ' -f1)"
	done
	echo "kernel ${kernel:-none} free $free"
	[ ${#deb_sums[@]} = 0 ] || printf 'deb %s\n' "${deb_sums[@]}" | LC_ALL=C sort
}
inputs=$(key_inputs) || die "cannot read the inputs of the image (above)"
key=$(sha256sum <<<"$inputs" | cut -c1-16)
if [ "$print_key" = 1 ]; then
	echo "$key"
	exit 0
fi
dest=$IMGS/$key
if [ "$rebuild" = 0 ] && [ -f "$dest/disk.img" ]; then
	info "cached image $key (built $(cat "$dest/built" 2>/dev/null || echo '?'); kernels: $(tr '\n' ' ' <"$dest/kernels"))"
	echo "$dest/disk.img"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "building an image needs root (mmdebstrap --mode=root, dpkg -i in the chroot); run it as root"
for c in mmdebstrap mkfs.ext4 flock; do
	command -v "$c" >/dev/null || die "$c is missing: apt-get install mmdebstrap e2fsprogs util-linux"
done
mkdir -p "$IMGS/apt-archives" || die "cannot create $IMGS"
exec 9>"$IMGS/.lock"
if ! flock -n 9; then
	info "waiting for another debian-image build (lock $IMGS/.lock)"
	flock 9
fi
# Holding the lock, no other build runs: a temporary directory left here is
# a killed build's. Never remove through a mount (a killed mmdebstrap may
# have left /proc, /sys or /dev mounted in its root).
unmount_below() {
	awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts | sort -r |
		while IFS= read -r m; do umount -l "$m" || warn "cannot unmount $m"; done
}
remove_tmp() {
	unmount_below "$1"
	rm -rf --one-file-system "$1"
}
for old in "$IMGS"/.tmp-*; do
	[ ! -e "$old" ] || { info "removing $old, left by a build that was killed"; remove_tmp "$old"; }
done
if [ "$rebuild" = 0 ] && [ -f "$dest/disk.img" ]; then
	info "image $key was built while this one waited"
	echo "$dest/disk.img"
	exit 0
fi

tmp=$(mktemp -d "$IMGS/.tmp-$key-XXXXXX") || die "cannot make a temporary directory in $IMGS"
trap 'remove_tmp "$tmp"' EXIT
trap 'info "interrupted: removing the unfinished build $tmp"; exit 130' INT TERM
root=$tmp/root out=$tmp/out
log=$IMGS/build-$key.log
mkdir -p "$out"
printf '%s\n' "$inputs" >"$out/inputs"
t0=$SECONDS

# ---- the root directory -------------------------------------------------
pkgs=$(sed -e 's/#.*//' "$PKGS" | awk 'NF { printf "%s%s", sep, $1; sep = "," }')
[ -z "$kernel" ] || pkgs=$pkgs,$STOCK
# mmdebstrap's hooks are shell commands, $1 the root (single quotes).
# shellcheck disable=SC2016
hooks=(--setup-hook='mkdir -p "$1"/var/cache/apt/archives/'
	--setup-hook="sync-in $IMGS/apt-archives /var/cache/apt/archives/")
if [ ${#debs[@]} -gt 0 ]; then
	mkdir -p "$tmp/debs"
	cp -- "${debs[@]}" "$tmp/debs/" || die "cannot copy the .debs"
	# As a user installs a kernel from a file: dpkg -i; its postinst runs
	# /etc/kernel/postinst.d/initramfs-tools (update-initramfs).
	# shellcheck disable=SC2016
	hooks+=(--customize-hook='mkdir -p "$1"/root/s61-debs'
		--customize-hook="sync-in $tmp/debs /root/s61-debs"
		--customize-hook='chroot "$1" sh -c "dpkg -i /root/s61-debs/*.deb"'
		--customize-hook='rm -rf "$1"/root/s61-debs')
fi
hooks+=(--customize-hook="sync-out /var/cache/apt/archives $IMGS/apt-archives")
info "building image $key: mmdebstrap bookworm (${kernel:+kernel $STOCK}${kernel:+${debs[*]:+, }}${debs[*]:+.debs ${debs[*]}}); log $log"
if ! mmdebstrap --mode=root --format=directory --variant=apt \
	--aptopt='APT::Install-Recommends "false"' --skip=essential/unlink \
	--include="$pkgs" "${hooks[@]}" bookworm "$root" "$SOURCES" >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "mmdebstrap failed after $((SECONDS - t0)) s (the whole log: $log)"
fi
t_strap=$((SECONDS - t0))

# ---- the system's own files and the overlay -----------------------------
cp -a "$OVERLAY/." "$root/" || die "cannot copy $OVERLAY into the image"
cp "${GUEST_FILES[@]/#/$GUEST_LIB/}" "$root/s61/" || die "cannot copy the guest helpers of $GUEST_LIB"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/s61-tests.service "$root/etc/systemd/system/multi-user.target.wants/"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 0' >"$root/etc/fstab"
echo s61-debian >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\ts61-debian\n' >"$root/etc/hosts"
# A fixed machine id: every boot of the image is the same machine, never a
# first boot.
sha256sum <<<"machine $key" | cut -c1-32 >"$root/etc/machine-id"
# Root logs in on the console without a password (a test machine without
# network; for looking around when a run goes wrong).
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"

# ---- what the image holds -----------------------------------------------
for v in "$root"/boot/vmlinuz-*; do
	[ -e "$v" ] || die "no kernel in $root/boot after mmdebstrap (log: $log)"
	v=${v##*/vmlinuz-}
	[ -f "$root/boot/initrd.img-$v" ] ||
		die "kernel $v has no /boot/initrd.img-$v: the initramfs-tools hook did not run for it (log: $log)"
	echo "$v"
done | sort -V >"$out/kernels" || exit 1
dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package} ${Version}\n' >"$out/packages" ||
	die "cannot list the packages of the image"

# ---- the ext4 image -----------------------------------------------------
used=$(du -sm --one-file-system "$root" | cut -f1)
size=$((used * 11 / 10 + free + 64))
info "root $used MB; making an ext4 image of $size MB with mkfs.ext4 -d"
mkfs.ext4 -q -F -L s61-debian -d "$root" "$out/disk.img" "${size}M" >>"$log" 2>&1 ||
	{ tail -n 5 "$log" >&2; die "mkfs.ext4 -d failed (log: $log)"; }
date '+%Y-%m-%d %H:%M:%S' >"$out/built"
printf 'mmdebstrap %s s, all %s s\n' "$t_strap" "$((SECONDS - t0))" >"$out/seconds"
mv "$log" "$out/build.log"
# A --rebuild replaces the old image (removed with $tmp at exit).
[ ! -e "$dest" ] || mv -T "$dest" "$tmp/old" || die "cannot move the old image $dest away"
mv -T "$out" "$dest" || die "cannot move the image into $dest"
info "image $key built in $((SECONDS - t0)) s (mmdebstrap $t_strap s); kernels: $(tr '\n' ' ' <"$dest/kernels")"
echo "$dest/disk.img"
