# shellcheck shell=bash
# Helpers for guest tests. A test is a bash script in /s61/tests/<suite>/;
# its output becomes KTAP diagnostics. Exit status: 0 pass, 1 fail,
# 2 skip, 3 expected failure (XFAIL, e.g. the old behaviour on base).

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 2
}

xfail() {
	echo "XFAIL: $*"
	exit 3
}

pass() {
	[ $# -eq 0 ] || echo "$*"
	exit 0
}

# Shrinker names in debugfs without their "-<id>" suffix, one per line.
shrinker_names() {
	local d
	for d in /sys/kernel/debug/shrinker/*; do
		[ -d "$d" ] || continue
		d=${d##*/}
		echo "${d%-*}"
	done | sort
}

# Number of debugfs shrinker entries called $1.
shrinker_count() {
	shrinker_names | grep -cx "$1"
}

# Fields of /proc/sys/fs/dentry-state.
nr_dentry() { awk '{ print $1 }' /proc/sys/fs/dentry-state; }
nr_negative() { awk '{ print $5 }' /proc/sys/fs/dentry-state; }

# A small ext4 file system on a loop device at $1 (ext4 keeps negative
# dentries, tmpfs does not).
mount_ext4() {
	local mnt=$1 size=${2:-32}
	local img=/tmp/ext4-$$.img
	dd if=/dev/zero of="$img" bs=1M count="$size" status=none || return 1
	mkfs.ext4 -q -F "$img" || return 1
	mkdir -p "$mnt"
	mount -o loop "$img" "$mnt"
}

# Create $2 negative dentries below directory $1 (stat of missing names).
make_negative_dentries() {
	local dir=$1 n=$2 i
	for ((i = 0; i < n; i++)); do
		[ -e "$dir/n$i" ]
	done
	return 0
}

# Make memcg $1 under the cgroup2 root, with the memory controller enabled.
memcg_create() {
	local cg=/sys/fs/cgroup/$1
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "$cg"
	echo "$cg"
}

# Value of key $2 in memory.stat of cgroup directory $1.
memcg_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"
}
