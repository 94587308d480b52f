# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this file
# Common helpers for the tools of this repository. Sourced, never run.
#
# Layout outside the tracked files:
#   $S61_CACHE            shared by every clone on this machine (~/.cache/shrinker61)
#     base.git            bare repository holding the imported linux-source tree
#     ccache/             compiler cache
#     debs/               linux-source .debs of other versions (apt-get download)
#   $S61_WORK             private to this clone (<clone>/.work, git-ignored)
#     linux/              the kernel checkout (git clone --shared of base.git)
#     build/<config>/     kbuild output (O=) per config
#     logs/               build and boot logs
#
# Environment shared by every command (a command's own: its --help):
#   S61_CACHE        the machine's shared cache (default
#                    ${XDG_CACHE_HOME:-~/.cache}/shrinker61)
#   S61_WORK         this clone's work directory (default <clone>/.work)
#   S61_SRC_TARBALL  the linux-source tarball stack init imports (default
#                    /usr/src/linux-source-6.1.tar.xz)
#   S61_SRC_VERSION  the installed linux-source version, instead of dpkg's
#                    (the tools' own tests)
# Set here from those, not read: S61_ROOT (this clone), S61_LINUX
# ($S61_WORK/linux), S61_BASE_GIT and S61_DEBS ($S61_CACHE/base.git, debs),
# S61_STACK_FILE (branch-stack.txt), S61_PATCHES (patches/), S61_SRC_PKG
# (linux-source-6.1), S61_IDENT_NAME and S61_IDENT_EMAIL (the storage
# identity of patches/).

set -o pipefail

S61_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
S61_CACHE=${S61_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shrinker61}
S61_WORK=${S61_WORK:-$S61_ROOT/.work}
S61_BASE_GIT=$S61_CACHE/base.git
S61_DEBS=$S61_CACHE/debs
S61_LINUX=$S61_WORK/linux
S61_STACK_FILE=$S61_ROOT/branch-stack.txt
S61_PATCHES=$S61_ROOT/patches
S61_SRC_PKG=linux-source-6.1
S61_SRC_TARBALL=${S61_SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
export CCACHE_DIR=${CCACHE_DIR:-$S61_CACHE/ccache}
# The storage identity of the series: author and Signed-off-by of every
# patch under patches/ and of the commits the tools make (tools/stack/stack.sh sets
# it in the kernel checkout). It is never mailed: 'tools/stack/b4-series.sh prep'
# makes the person who runs it (their git config or S61_SENDER) the author
# and signer of every commit of the series branch, and refuses this
# identity as a sender (README: "Who sends the series").
S61_IDENT_NAME="Lockless shrink 6.1 backport"
S61_IDENT_EMAIL="lockless-shrink-6.1@invalid"

# The name a command's messages give: its file name without .sh; those of
# tools/debian/ and tools/lib/ with the concern in front (debian-boot, not
# boot, which is a concern of its own; lib-query).
s61_prog=$(basename "$0" .sh)
case $0 in */debian/* | */lib/*) s61_prog=$(basename "$(dirname "$0")")-$s61_prog ;; esac

die() {
	printf '%s: error: %s\n' "$s61_prog" "$*" >&2
	exit 1
}

warn() {
	printf '%s: warning: %s\n' "$s61_prog" "$*" >&2
}

info() {
	printf '%s: %s\n' "$s61_prog" "$*" >&2
}

# The base line of branch-stack.txt: "base <package> <version>".
stack_base_version() {
	awk '$1 == "base" { print $3; exit }' "$S61_STACK_FILE"
}

stack_base_package() {
	awk '$1 == "base" { print $2; exit }' "$S61_STACK_FILE"
}

# The ordered topic branches of branch-stack.txt (comments and base skipped).
stack_branches() {
	sed -e 's/#.*//' "$S61_STACK_FILE" | awk 'NF && $1 != "base" { print $1 }'
}

# The topic branches whose line in branch-stack.txt carries the word "core"
# after the name (the branches that change the shrinker core), in stack
# order. stack_branches and the others read only the first word of a line.
stack_core_branches() {
	sed -e 's/#.*//' "$S61_STACK_FILE" |
		awk 'NF && $1 != "base" { for (i = 2; i <= NF; i++) if ($i == "core") { print $1; break } }'
}

stack_top() {
	local b top=base
	for b in $(stack_branches); do
		top=$b
	done
	echo "$top"
}

# Parent of a branch in the stack ("base" for the first).
stack_parent() {
	local want=$1 prev=base b
	for b in $(stack_branches); do
		if [ "$b" = "$want" ]; then
			echo "$prev"
			return 0
		fi
		prev=$b
	done
	return 1
}

stack_has_branch() {
	local b
	[ "$1" = base ] && return 0
	for b in $(stack_branches); do
		[ "$b" = "$1" ] && return 0
	done
	return 1
}

# record_put FILE HEADER FIELD...: the tab-separated record FILE (one line
# per name, the first FIELD, under the "# ..." HEADER line) with the line of
# that name replaced by FIELD...; the lines kept sorted. Written through a
# temporary file, so an interrupted write leaves the old record.
record_put() {
	local rec=$1 hdr=$2 tmp
	shift 2
	mkdir -p "$(dirname "$rec")" || return 1
	tmp=$(mktemp "$rec.XXXXXX") || return 1
	if ! {
		echo "$hdr"
		{
			[ ! -f "$rec" ] || awk -F'\t' -v n="$1" '/^#/ { next } $1 != n' "$rec"
			printf '%s\t' "$@" | sed 's/\t$//'
			echo
		} | sort
	} >"$tmp" || ! mv "$tmp" "$rec"; then
		rm -f "$tmp"
		return 1
	fi
}

# build_lock WHAT: one kernel build at a time on this machine (two on 2
# cores only thrash): tools/build/kbuild.sh and tools/debian/deb.sh, from any clone or
# worktree, take this lock (fd 9) first and hold it until they exit
# (checkout included, so a build never sees its tree switched under it).
build_lock() {
	local lock=$S61_CACHE/kbuild.lock
	mkdir -p "$S61_CACHE" || die "cannot make $S61_CACHE"
	exec 9>>"$lock"
	if ! flock -n 9; then
		info "waiting for another kernel build to finish ($(cat "$lock.owner" 2>/dev/null || echo "owner unknown")); one build at a time on this machine"
		flock 9 || die "cannot take $lock"
	fi
	echo "pid $$ building $1 in $S61_WORK" >"$lock.owner"
}

# build_env: the same paths and stamps in every clone, so that ccache hits
# across clones and a tree always builds the same kernel.
build_env() {
	export CCACHE_BASEDIR=$S61_WORK CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
	export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026" KBUILD_BUILD_USER=s61 KBUILD_BUILD_HOST=qemu
}

kgit() {
	git -C "$S61_LINUX" "$@"
}

require_checkout() {
	[ -e "$S61_LINUX/.git" ] ||
		die "no kernel checkout at $S61_LINUX; run 'tools/stack/stack.sh init' (or 'make') first"
}

# S61_SRC_VERSION overrides the package database (for the tools' own tests).
installed_pkg_version() {
	if [ -n "${S61_SRC_VERSION:-}" ]; then
		echo "$S61_SRC_VERSION"
		return 0
	fi
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null
}

# stack_branch_of COMMIT: the branch of the stack (base included) a commit
# is judged as (qemu/expected): the lowest one whose tip contains it; for a
# commit none contains (a scratch commit on top of a branch, e.g. a
# deliberately broken variant), the highest one below it. Returns 1 when
# neither: the commit is not on the stack.
stack_branch_of() {
	local c b below=
	c=$(kgit rev-parse -q --verify "$1^{commit}") || return 1
	for b in base $(stack_branches); do
		if kgit merge-base --is-ancestor "$c" "$b" 2>/dev/null; then
			echo "$b"
			return 0
		fi
	done
	for b in base $(stack_branches); do
		! kgit merge-base --is-ancestor "$b" "$c" 2>/dev/null || below=$b
	done
	[ -n "$below" ] || return 1
	echo "$below"
}

# The Debian packages of tools/debian/deb.sh (tools/debian/compare.sh,
# tools/debian/debug-run.sh, tools/debian/broken.sh pick them the same way).
# deb_field FILE FIELD: a field of a .deb's control file (fails when FILE
# is no .deb).
deb_field() {
	dpkg-deb -f "$1" "$2" 2>/dev/null
}

# deb_newest FILE...: the newest (by modification time) of the FILEs that
# exist (an unexpanded glob is none); nothing when none does. tools/debian/deb.sh
# leaves older builds beside the new ones.
deb_newest() {
	local f best=
	for f in "$@"; do
		[ -f "$f" ] || continue
		[ -n "$best" ] && [ ! "$f" -nt "$best" ] || best=$f
	done
	[ -z "$best" ] || echo "$best"
}

# deb_testmod KVER VERSION FILE...: the newest of the FILEs that is the test
# module package of kernel KVER: package s61-testmod-KVER, or one that
# depends on linux-image-KVER; of version VERSION only, when VERSION is not
# empty (tools/debian/deb.sh gives both packages of a build the same version).
deb_testmod() {
	local kver=$1 version=$2 f dep
	local -a hits=()
	shift 2
	for f in "$@"; do
		[ -f "$f" ] || continue
		if [ "$(deb_field "$f" Package)" != "s61-testmod-$kver" ]; then
			dep=$(deb_field "$f" Depends | tr ',|' '\n' | sed 's/(.*//; s/[[:space:]]//g')
			grep -qxF "linux-image-$kver" <<<"$dep" || continue
		fi
		[ -z "$version" ] || [ "$(deb_field "$f" Version)" = "$version" ] || continue
		hits+=("$f")
	done
	deb_newest "${hits[@]}"
}

# stack_id: the id of the top of the stack as branch-stack.txt and patches/
# describe it, without a kernel checkout: the sha1 (12 digits) of the base
# line's package and version and, in stack order, the diff part of every
# patch (from its first "diff --git" line: the message, the diffstat and
# the file's name change no tree). The same id builds the same tree. A record of a run on
# the top (tools/boot/broken-variants.sh, tools/debian/broken.sh) stores it; a record
# of another id ran on another kernel (tools/boot/check-claims.sh calls it stale).
stack_id() {
	local b
	[ -f "$S61_STACK_FILE" ] || return 1
	local files=()
	for b in $(stack_branches); do
		[ -d "$S61_PATCHES/$b" ] || continue
		mapfile -t -O ${#files[@]} files < <(find "$S61_PATCHES/$b" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
	done
	# One awk for every patch (per file: "patch", then its lines from the
	# first "diff --git" on), not one per file: the same bytes, in seconds
	# less (tools/lint/records.py computes it once per page).
	{
		awk '$1 == "base" { print $2, $3; exit }' "$S61_STACK_FILE"
		[ ${#files[@]} = 0 ] ||
			awk 'FNR == 1 { print "patch"; d = 0 } /^diff --git / { d = 1 } d' "${files[@]}"
	} | sha1sum | cut -c1-12
}

# results_pages PAGE...: docs/results/PAGE.md anew from its records
# (tools/lib/results.py PAGE), after a tool added a row to one of them: a
# page left behind its record fails make check-records. A page that cannot
# be written is a warning, not the run's failure.
results_pages() {
	local p
	for p; do
		python3 "$S61_ROOT/tools/lib/results.py" "$p" 2>/dev/null ||
			warn "docs/results/$p.md not written anew ('python3 tools/lib/results.py $p' says why); make check-records fails until it is"
	done
}

# ktap_caught_by RESULT TEST: what failed TEST in a KTAP result file (the
# guest init's or the Debian runner's result.ktap; rootfs-overlay/s61/
# ktap.sh writes a test's output as "# " lines, then its result line):
#   assertion: REASON   "not ok", the test's own "FAIL: REASON" line
#   timeout: LINE       "not ok" after "# timed out after Ns" (the runner
#                       killed it: no assertion of the test failed)
#   exit: LINE          "not ok" after "# exit N" or without a FAIL: line
#                       (a shell error, a signal, an oops in its process)
#   pass, skip, xfail   it did not fail
#   none                not reported (no file, or the guest stopped first)
ktap_caught_by() {
	[ -f "$1" ] || { echo none; return; }
	awk -v t="$2" '
		function reset() { why = ""; tmo = ""; ex = "" }
		/^ *# / {
			l = $0; sub(/^ *# /, "", l)
			if (l ~ /^FAIL: /) why = substr(l, 7)
			else if (l ~ /^timed out after /) tmo = l
			else if (l ~ /^exit [0-9]+/) ex = l
			next
		}
		$1 == "ok" && $3 == t {
			s = "pass"
			if ($4 == "#" && $5 == "SKIP") s = "skip"
			if ($4 == "#" && ($5 == "XFAIL" || $5 == "TODO")) s = "xfail"
			reset(); next
		}
		$1 == "not" && $2 == "ok" && $4 == t {
			if (tmo != "") s = "timeout: " tmo
			else if (ex != "") s = "exit: " ex
			else if (why != "") s = "assertion: " why
			else s = "exit: not ok without a FAIL: line"
			reset(); next
		}
		/^(not )?ok / { reset() }
		END { print (s == "" ? "none" : s) }' "$1"
}

# with_debian_smoke: add debian-smoke to $suites (after the suites asked
# for: their measurements come first) and, when $only names tests, its
# shrinker-debugfs test to $only. debian-smoke is the only Debian suite
# that checks the shrinker debugfs (and that the kernel booted, systemd's
# state); tools/debian/compare.sh and tools/debian/broken.sh run it in every boot.
with_debian_smoke() {
	case ",$suites," in *,debian-smoke,*) ;; *) suites=$suites,debian-smoke ;; esac
	if [ -n "$only" ]; then
		case ",$only," in *,shrinker-debugfs,* | *,03-shrinker-debugfs,*) ;; *) only=$only,shrinker-debugfs ;; esac
	fi
}
