#!/usr/bin/env bash
# Install the Debian packages this project needs, only those that are missing.
#
# Usage: tools/build/deps.sh [--check] [GROUP...]
#   GROUP: base (default: kernel import, build, QEMU, initramfs, guest tools),
#          b4, lint, coverage, bench, lava, lava-run, debian-quilt
#   --check  only report what is missing; exit 1 if anything is.
. "$(dirname "$0")/../lib/lib.sh"

usage() {
	sed -n '2,8s/^# \{0,1\}//p' "$0"
}

declare -A groups=(
	[base]="git make gcc flex bison bc libelf-dev libssl-dev openssl ccache cpio kmod dwarves
		libc6-dev xz-utils python3 perl rsync linux-source-6.1 qemu-system-x86 dracut
		busybox-static stress-ng util-linux e2fsprogs procps"
	[b4]="b4 git-email"
	[lint]="shellcheck python3-ply python3-git"
	# the runtime coverage suite's guest tools (qemu/bins/coverage.list);
	# only their binaries go into the guest. On a host that runs systemd,
	# nfs-kernel-server and rpcbind start their services when installed.
	[coverage]="xfsprogs btrfs-progs f2fs-tools erofs-utils gfs2-utils mtd-utils
		nfs-kernel-server nfs-common rpcbind mdadm bcache-tools quota attr dmsetup"
	# tools/bench/bench.sh: perf in the guest (qemu/bins/bench.list), gnuplot for the plot
	[bench]="linux-perf gnuplot-nox util-linux"
	# tools/lab/lava-jobs.sh, tools/lab/kcidb.py (validation with Debian's python3 and
	# lava-common's job schema): what make check needs
	[lava]="lava-common python3-jsonschema python3-yaml"
	# tools/lab/lava-local-run.sh (lava-run) and lavacli: never in make check,
	# lava-dispatcher pulls in systemd-sysv and libguestfs
	[lava-run]="lava-dispatcher lavacli"
	# tools/debian/quilt.sh, tests/debian/test-quilt.sh: Debian's source package
	[debian-quilt]="quilt dpkg-dev"
)

check_only=0
want=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--check) check_only=1 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -n "${groups[$1]:-}" ] || die "unknown group '$1' (known: ${!groups[*]})"
	   want+=("$1") ;;
	esac
	shift
done
[ ${#want[@]} -gt 0 ] || want=(base)

missing=()
for g in "${want[@]}"; do
	for p in ${groups[$g]}; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		[ "$st" = installed ] || missing+=("$p")
	done
done

[ ${#missing[@]} -eq 0 ] && exit 0
if [ $check_only = 1 ]; then
	info "missing packages: ${missing[*]}"
	exit 1
fi

info "installing: ${missing[*]}"
[ "$(id -u)" = 0 ] || die "need root to install ${missing[*]} (run: sudo apt-get install ${missing[*]})"
export DEBIAN_FRONTEND=noninteractive
# Packages such as nfs-kernel-server start their services on install, which
# would load modules (nfsd) into this machine's kernel: our kernels run only
# in QEMU. A policy-rc.d that forbids service starts, for the install only.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# tools/build/deps.sh: no service starts during the install\nexit 101\n' >"$policy" &&
		chmod 755 "$policy" && trap 'rm -f "$policy"' EXIT
fi
# Update the package lists only when apt cannot find a candidate.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/s61-apt.log" 2>&1; then
	apt-get update -q >>"${TMPDIR:-/tmp}/s61-apt.log" 2>&1 ||
		die "apt-get update failed; see ${TMPDIR:-/tmp}/s61-apt.log"
	apt-get install -y --no-install-recommends "${missing[@]}" >>"${TMPDIR:-/tmp}/s61-apt.log" 2>&1 ||
		die "apt-get install ${missing[*]} failed; see ${TMPDIR:-/tmp}/s61-apt.log"
fi
info "installed: ${missing[*]}"
