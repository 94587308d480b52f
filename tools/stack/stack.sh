#!/usr/bin/env bash
# Maintain the topic-branch stack of this repository in a kernel git checkout.
#
# Usage: tools/stack/stack.sh COMMAND [options]
#   init     import the linux-source tarball once (shared), make this clone's checkout
#   apply    (re)create every branch of branch-stack.txt from patches/ with git am
#   export   write every branch back to patches/<branch>/ (deterministic)
#   rebase   restack every branch on the (changed) branch below it
#   move     move the whole stack to another Debian upload (also: rebase --base VER)
#   check-upstream  is there a newer upload, does the stack move to it? (exit 0/10/11/2)
#   status   per branch: commits, exported or not; exit 1 if anything is not exported
#   path     print the kernel checkout's path
# Run 'tools/stack/stack.sh COMMAND --help' for a command's options.
# Environment: S61_MADISON=FILE: check-upstream and move read the uploads
# from FILE (apt-cache madison's output) instead of asking apt.
# S61_IMPORT_FROM=deb|source: import an upload only from its .deb, or only
# from Debian's source package (default auto: the .deb, else the source).
. "$(dirname "$0")/../lib/lib.sh"

SYNC_NS=refs/stack/synced
# apply builds the new branches under these refs and moves the real ones in
# one transaction at the end.
TMP_NS=refs/stack/new
# A directory in the checkout's git dir while apply works: "head" (what was
# checked out), "am" (the patch of a git am that apply itself started).
APPLY_MARK=s61-stack-apply

usage() {
	sed -n '2,17s/^# \{0,1\}//p' "$0"
}

# Fixed identity and dates so that the same tarball gives the same base commit
# on every machine.
base_env() {
	export GIT_AUTHOR_NAME="linux-source import" GIT_AUTHOR_EMAIL="import@localhost"
	export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
	export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
}

# Deterministic format-patch: no real commit hash in the From line, no version
# footer, no numbering in subjects (the file name carries the order).
fmt_patch() {
	git -C "$S61_LINUX" -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c format.signature= -c format.numbered=false -c format.coverLetter=false \
		format-patch --zero-commit --no-signature -N --no-renames --no-base "$@"
}

branch_exists() {
	kgit rev-parse -q --verify "refs/heads/$1" >/dev/null
}

# The checkout's git directory, absolute (git rev-parse --git-path answers
# relative to the checkout, not to the directory this tool runs in).
kgit_dir() {
	kgit rev-parse --absolute-git-dir
}

# The git operation in progress in the checkout, if any: am, rebase,
# cherry-pick, revert or merge.
kgit_op() {
	local gd
	gd=$(kgit_dir) || return 0
	if [ -d "$gd/rebase-apply" ]; then
		if [ -e "$gd/rebase-apply/applying" ]; then echo am; else echo rebase; fi
	elif [ -d "$gd/rebase-merge" ]; then
		echo rebase
	elif [ -e "$gd/CHERRY_PICK_HEAD" ]; then
		echo cherry-pick
	elif [ -e "$gd/REVERT_HEAD" ]; then
		echo revert
	elif [ -e "$gd/MERGE_HEAD" ]; then
		echo merge
	fi
}

# How to get out of the operation $1 that is in progress in the checkout.
op_way_out() {
	local k="git -C $S61_LINUX"
	case $1 in
	am) echo "a git am is in progress in $S61_LINUX: fix the patch, '$k add -f FILE...', '$k am --continue'; or give up with '$k am --abort'" ;;
	rebase) echo "a rebase is in progress in $S61_LINUX: resolve the conflicts, '$k add -f FILE...', '$k rebase --continue', then 'tools/stack/stack.sh rebase' again; or '$k rebase --abort'" ;;
	*) echo "a git $1 is in progress in $S61_LINUX: resolve the conflicts, '$k add -f FILE...', '$k $1 --continue'; or '$k $1 --abort'" ;;
	esac
}

# What an apply that did not finish (kill -9) left in the checkout, if anything.
apply_leftover() {
	local gd
	gd=$(kgit_dir) || return 0
	if [ -d "$gd/$APPLY_MARK" ]; then
		echo "an interrupted 'tools/stack/stack.sh apply' left its state in $S61_LINUX"
	elif [ -n "$(kgit for-each-ref --format=x "$TMP_NS/")" ]; then
		echo "an interrupted 'tools/stack/stack.sh apply' left temporary refs ($TMP_NS/) in $S61_LINUX"
	fi
}

# Changes in the checkout that no commit holds: tracked files, and with
# "untracked" as $1 new files too (git status --short lines).
uncommitted() {
	if [ "${1:-}" = untracked ]; then
		kgit status --porcelain --untracked-files=all
	else
		kgit status --porcelain --untracked-files=no
	fi
}

# The untracked files among the git status --short lines on stdin that
# are files of an imported upload, byte for byte (path and content as in a
# tag base-VERSION of the shared import): left by a move that was
# interrupted (before tools/stack/stack.sh removed them), never work to commit.
# "VERSION<TAB>PATH" a line; the first 200 untracked files are looked at.
stray_files() {
	local paths=() tag
	mapfile -t paths < <(sed -n 's/^?? \([^"]*\)$/\1/p' | head -200)
	[ ${#paths[@]} -gt 0 ] || return 0
	{
		printf '%s\n' "${paths[@]}" | (cd "$S61_LINUX" && git hash-object --stdin-paths) |
			paste - <(printf '%s\n' "${paths[@]}") | sed 's/^/H /'
		for tag in $(git -C "$S61_BASE_GIT" for-each-ref --format='%(refname:short)' 'refs/tags/base-*' 2>/dev/null); do
			git -C "$S61_BASE_GIT" ls-tree -r "$tag" -- "${paths[@]}" 2>/dev/null | sed "s/^/T ${tag#base-} /"
		done
	} | awk -F'\t' '
		$1 ~ /^H / { h[$2] = substr($1, 3); next }
		{ split($1, m, " "); if (h[$2] == m[5] && !seen[$2]++) print m[2] "\t" $2 }'
}

# What to do about the stray files $1 (stray_files lines), as a sentence.
strays_advice() {
	local list files
	list=$(printf '%s\n' "$1" | awk -F'\t' -v pkg="$S61_SRC_PKG" 'NR <= 20 { printf "%s%s (%s %s)", (NR > 1 ? ", " : ""), $2, pkg, $1 } END { if (NR > 20) printf ", ... (%d files)", NR }')
	files=$(printf '%s\n' "$1" | cut -f2 | tr '\n' ' ')
	echo "the kernel checkout $S61_LINUX holds files of another upload that no branch has, left by an interrupted move: $list; no work of yours, they belong in no commit: remove them with 'git -C $S61_LINUX clean -f -- ${files% }'"
}

# Refuse to run command $1 on a checkout in the middle of something: an
# unfinished apply, a git operation in progress, uncommitted changes (and,
# with "untracked" as $2, new files not added: files of another upload
# left by an interrupted move are named as such).
check_clean() {
	local what=$1 op left dirty strays
	check_no_move "$what"
	left=$(apply_leftover)
	[ -z "$left" ] || die "$left; run 'tools/stack/stack.sh apply' (it repairs that first) before '$what'"
	op=$(kgit_op)
	[ -z "$op" ] || die "$(op_way_out "$op"); nothing was changed by 'tools/stack/stack.sh $what'"
	dirty=$(uncommitted "${2:-}")
	strays=
	[ -z "$dirty" ] || strays=$(printf '%s\n' "$dirty" | stray_files)
	[ -z "$strays" ] || die "$(strays_advice "$strays"); then run 'tools/stack/stack.sh $what'"
	if [ -n "$dirty" ]; then
		printf '%s\n' "$dirty" | head -20 >&2
		die "the kernel checkout $S61_LINUX has uncommitted changes (above); commit them ('git -C $S61_LINUX commit -a', new files first with 'git -C $S61_LINUX add -f FILE') and then run 'tools/stack/stack.sh $what', or put them aside with 'git -C $S61_LINUX stash -u'"
	fi
}

# Verify the checkout's base is the one branch-stack.txt names.
check_base() {
	local want have
	want=$(stack_base_version)
	[ -n "$want" ] || die "branch-stack.txt has no 'base <package> <version>' line"
	have=$(base_version base)
	[ -n "$have" ] || die "$S61_LINUX has no 'base' branch from 'tools/stack/stack.sh init'; run 'tools/stack/stack.sh init'"
	[ "$have" = "$want" ] ||
		die "the kernel checkout's base is $S61_SRC_PKG $have but branch-stack.txt wants $want: 'tools/stack/stack.sh init' moves base to $want (then 'tools/stack/stack.sh apply' rebuilds the branches from patches/); to move the stack itself to another upload: 'tools/stack/stack.sh move VERSION'"
}

# The name among the lines of stdin closest to $1: at most two edits away,
# or one a prefix of the other; nothing when none is.
closest_name() {
	awk -v w="$1" '
	function dist(a, b,   i, j, la, lb, d, x) {
		la = length(a); lb = length(b)
		for (i = 0; i <= la; i++) d[i, 0] = i
		for (j = 0; j <= lb; j++) d[0, j] = j
		for (i = 1; i <= la; i++)
			for (j = 1; j <= lb; j++) {
				x = d[i - 1, j - 1] + (substr(a, i, 1) != substr(b, j, 1))
				if (d[i - 1, j] + 1 < x) x = d[i - 1, j] + 1
				if (d[i, j - 1] + 1 < x) x = d[i, j - 1] + 1
				d[i, j] = x
			}
		return d[la, lb]
	}
	NF {
		n = dist(w, $0)
		if (n > 1 && (index($0, w) == 1 || index(w, $0) == 1)) n = 1
		if (n <= 2 && (best == "" || n < bestn)) { best = $0; bestn = n }
	}
	END { if (best != "") print best }'
}

# branch-stack.txt against the folders of patches/, before anything reads
# the stack: every branch a valid git branch name, named once, with its
# folder; every folder a branch. Names the line, and the folder or branch
# that a typo probably meant.
check_stack() {
	local n=0 line name dir hint errs=() missing=() orphans=()
	local -A at=()
	while IFS= read -r line; do
		n=$((n + 1))
		read -r name _ <<<"${line%%#*}"
		if [ -z "$name" ] || [ "$name" = base ]; then
			continue
		fi
		if [ -n "${at[$name]:-}" ]; then
			errs+=("branch-stack.txt line $n: branch '$name' is listed twice (also on line ${at[$name]})")
		elif ! git check-ref-format --branch "$name" >/dev/null 2>&1; then
			errs+=("branch-stack.txt line $n: '$name' is not a valid git branch name")
			at[$name]=$n
		else
			at[$name]=$n
			[ -d "$S61_PATCHES/$name" ] || missing+=("$name")
		fi
	done <"$S61_STACK_FILE"
	for dir in "$S61_PATCHES"/*/; do
		[ -d "$dir" ] || continue
		name=$(basename "$dir")
		[ -n "${at[$name]:-}" ] || orphans+=("$name")
	done
	# shellcheck disable=SC2016  # the quotes are part of the message
	for name in "${missing[@]}"; do
		hint=$(printf '%s\n' "${orphans[@]}" | closest_name "$name")
		errs+=("branch-stack.txt line ${at[$name]}: branch '$name' has no folder patches/$name/${hint:+ (did you mean '$hint'?)}; a new branch gets one with 'mkdir patches/$name && touch patches/$name/.keep'")
	done
	# shellcheck disable=SC2016  # the quotes are part of the message
	for name in "${orphans[@]}"; do
		hint=$(printf '%s\n' "${missing[@]}" | closest_name "$name")
		errs+=("patches/$name/ belongs to no branch of branch-stack.txt (orphaned${hint:+; is '$hint' meant to be '$name'?}): name it there or remove the folder")
	done
	[ ${#errs[@]} = 0 ] ||
		die "branch-stack.txt and patches/ disagree; nothing was changed:$(printf '\n  %s' "${errs[@]}")"
}

# Commits made in the checkout carry the series' storage identity
# (tools/lib/lib.sh), also in a checkout made before that identity changed:
# init and apply set it whenever it differs.
setup_identity() {
	[ "$(kgit config user.name)" = "$S61_IDENT_NAME" ] || kgit config user.name "$S61_IDENT_NAME"
	[ "$(kgit config user.email)" = "$S61_IDENT_EMAIL" ] || kgit config user.email "$S61_IDENT_EMAIL"
}

# Debian's linux-source .gitignore ends with a packaging rule that ignores
# every top-level path ("/*", "!/debian/"), so a plain 'git add' of a new
# kernel file is refused. Drop that rule from the checkout's copy of the
# file and mark it skip-worktree: commits keep the pristine file, git status
# does not show the edit, and git add works as in a kernel.org tree.
setup_gitignore() {
	local f=$S61_LINUX/.gitignore
	if [ ! -f "$f" ] || ! grep -qx '/\*' "$f"; then
		return 0
	fi
	if ! kgit update-index --skip-worktree .gitignore ||
	   ! sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$f"; then
		warn "could not lift the '/*' rule of $f; add new files with 'git add -f'"
	fi
}

# ---------------------------------------------------------------- init
cmd_init() {
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/stack/stack.sh init
		Import the $S61_SRC_PKG version that branch-stack.txt names once into the
		shared bare repository $S61_BASE_GIT (tag base-<version>, a deterministic
		commit; several versions live side by side there), then give this clone
		its own kernel checkout at $S61_LINUX sharing those objects, its branch
		'base' at that version. Idempotent. The tarball comes from the installed
		$S61_SRC_PKG when its version is the one wanted, else from
		'apt-get download $S61_SRC_PKG=<version>' into $S61_DEBS (the installed
		package is never touched), and when the archive has no such .deb from
		Debian's source package 'linux' of that version (orig tarball and
		debian/patches, dpkg-source -x; 'tools/debian/quilt.sh source' fetches it):
		the same tree. S61_IMPORT_FROM=deb or source takes only that form
		(default auto). When branch-stack.txt names another version
		than the checkout's base (e.g. after a pull), init moves 'base' there;
		'tools/stack/stack.sh apply' then rebuilds the branches from patches/.
		H
		exit 0 ;;
		*) die "init: unknown argument $1" ;;
		esac
	done
	local want have
	want=$(stack_base_version)
	[ -n "$want" ] || die "branch-stack.txt has no 'base <package> <version>' line"
	mkdir -p "$S61_CACHE"
	import_base "$want"
	if [ ! -d "$S61_LINUX/.git" ]; then
		info "creating the kernel checkout $S61_LINUX (objects shared with $S61_BASE_GIT)"
		mkdir -p "$S61_WORK"
		local t0=$SECONDS
		git clone -q --shared --no-checkout "$S61_BASE_GIT" "$S61_LINUX"
		kgit config core.abbrev 12
		kgit config gc.auto 0
		kgit checkout -q -b base "base-$want"
		info "checkout ready in $((SECONDS - t0)) s"
	else
		kgit fetch -q origin "refs/tags/*:refs/tags/*"
		if ! branch_exists base; then
			kgit branch base "base-$want"
		else
			have=$(base_version base)
			[ "$have" = "$want" ] || init_move_base "$have" "$want"
		fi
	fi
	setup_gitignore
	setup_identity
	check_base
}

# The Debian version an imported base commit $1 records (empty if none).
base_version() {
	kgit log -1 --format=%B "$1" 2>/dev/null | sed -n 's/^Debian-Version: //p'
}

# init, when branch-stack.txt names version $2 and the checkout's base is
# the import of $1: point base at the import of $2. Only a pristine import
# is moved (base with commits of its own is refused), never during a move.
init_move_base() {
	local from=$1 to=$2 old
	old=$(kgit rev-parse base)
	if [ -z "$from" ] || [ "$old" != "$(kgit rev-parse -q --verify "refs/tags/base-$from^{commit}")" ]; then
		die "base in $S61_LINUX is not a pristine import (it has commits of its own); move them to a branch of the stack and 'git -C $S61_LINUX branch -f base base-$to'"
	fi
	check_no_move init
	if [ "$(kgit symbolic-ref -q HEAD)" = refs/heads/base ]; then
		check_clean init
		kgit checkout -q --detach
		kgit update-ref refs/heads/base "base-$to" "$old"
		kgit checkout -q base
	else
		kgit update-ref refs/heads/base "base-$to" "$old"
	fi
	info "moved base from $S61_SRC_PKG $from to $to (branch-stack.txt); the branches are still on $from: 'tools/stack/stack.sh apply' rebuilds them from patches/ (to move the stack itself to another upload: 'tools/stack/stack.sh move VERSION')"
}

# The .deb of $S61_SRC_PKG version $1 in $S61_DEBS, fetched with
# 'apt-get download' unless it is there already. Prints its path; returns 1
# (apt's lines on stderr) when the archive does not serve it.
fetch_deb() {
	local ver=$1 deb dl
	deb=$S61_DEBS/${S61_SRC_PKG}_${ver//:/%3a}_all.deb
	if [ ! -s "$deb" ]; then
		mkdir -p "$S61_DEBS"
		dl=$(mktemp -d "$S61_DEBS/download.XXXXXX")
		info "fetching $S61_SRC_PKG $ver: apt-get download $S61_SRC_PKG=$ver (into $S61_DEBS)"
		if ! (cd "$dl" && apt-get download -q "$S61_SRC_PKG=$ver") >&2; then
			rm -rf "$dl"
			return 1
		fi
		mv "$dl"/*.deb "$deb" || die "apt-get download of $S61_SRC_PKG $ver left no .deb in $dl"
		rmdir "$dl"
	fi
	echo "$deb"
}

# The kernel tree of upload $1, unpacked under directory $2; prints
# "DIR<TAB>WHAT", WHAT the file it came from. Three forms give the same
# tree: the installed linux-source tarball when it is that version; the
# tarball in the $S61_SRC_PKG .deb of that version; Debian's 'linux' source
# package (orig tarball + debian/patches, unpacked by dpkg-source -x, its
# debian/ and .pc/ left out), which the archive keeps for more uploads than
# the .deb (tools/debian/quilt.sh source fetches it, with deb-src entries of
# its own). The source package is the fallback when apt has no .deb.
# S61_IMPORT_FROM=deb or =source takes only that form (default: auto).
source_tree() {
	local ver=$1 dir=$2 deb name=$S61_SRC_PKG.tar.xz tarball="" dsc src why
	mkdir "$dir/src" || die "cannot make $dir/src"
	case ${S61_IMPORT_FROM:-auto} in
	auto|deb|source) ;;
	*) die "S61_IMPORT_FROM is '$S61_IMPORT_FROM'; it takes auto (the default), deb or source" ;;
	esac
	if [ "${S61_IMPORT_FROM:-auto}" = source ]; then
		:
	elif [ "$(installed_pkg_version "$S61_SRC_PKG")" = "$ver" ] && [ -r "$S61_SRC_TARBALL" ]; then
		tarball=$S61_SRC_TARBALL
	elif deb=$(fetch_deb "$ver"); then
		dpkg-deb --fsys-tarfile "$deb" | tar -C "$dir" -x "./usr/src/$name" ||
			die "$deb holds no ./usr/src/$name"
		tarball=$dir/usr/src/$name
	fi
	if [ -n "$tarball" ]; then
		tar -C "$dir/src" -xJf "$tarball" || die "cannot unpack $tarball"
		src=$(find "$dir/src" -mindepth 1 -maxdepth 1 -type d | head -1)
		printf '%s\t%s\n' "$src" "$(basename "$tarball")"
		return 0
	fi
	[ "${S61_IMPORT_FROM:-auto}" != deb ] ||
		die "could not download $S61_SRC_PKG $ver, and S61_IMPORT_FROM=deb forbids the source package: 'apt-cache madison $S61_SRC_PKG' lists the uploads"
	[ "${S61_IMPORT_FROM:-auto}" = source ] ||
		info "no $S61_SRC_PKG $ver .deb in the archive; trying Debian's source package linux $ver"
	if ! dsc=$("$S61_ROOT/tools/debian/quilt.sh" source "$ver" 2>"$dir/source.log"); then
		why=$(sed -n 's/^debian-quilt: error: //p' "$dir/source.log" | head -1)
		die "could not download $S61_SRC_PKG $ver, nor Debian's source package linux $ver (${why:-see above}): 'apt-cache madison $S61_SRC_PKG' lists the uploads; 'apt-get update' refreshes that list"
	fi
	command -v dpkg-source >/dev/null ||
		die "could not download $S61_SRC_PKG $ver; Debian's source package linux $ver is there ($dsc), but dpkg-source, which unpacks it, is missing: run 'tools/build/deps.sh debian-quilt', then again"
	src=$dir/src/linux-$ver
	dpkg-source -q -x "$dsc" "$src" >"$dir/dpkg-source.log" 2>&1 ||
		die "dpkg-source -x $dsc failed: $(tail -2 "$dir/dpkg-source.log" | tr '\n' ' ')"
	rm -rf "$src/debian" "$src/.pc"
	printf '%s\t%s\n' "$src" "$(basename "$dsc") (orig tarball + debian/patches)"
}

# Import $S61_SRC_PKG version $1 into the shared bare repository as tag
# base-$1, once (under a lock: clones may import at the same time). The
# commit depends on nothing but the tree: fixed identity and dates.
import_base() {
	local ver=$1 tmp t0=$SECONDS lock=$S61_CACHE/import.lock
	if git -C "$S61_BASE_GIT" rev-parse -q --verify "refs/tags/base-$ver" >/dev/null 2>&1; then
		return 0
	fi
	mkdir -p "$S61_CACHE"
	exec 9>"$lock"
	if ! flock -n 9; then
		info "waiting for the import lock $lock (another clone is importing)"
		flock 9
	fi
	if git -C "$S61_BASE_GIT" rev-parse -q --verify "refs/tags/base-$ver" >/dev/null 2>&1; then
		exec 9>&-
		return 0
	fi
	tmp=$(mktemp -d "$S61_CACHE/import.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	local src what
	IFS=$'\t' read -r src what <<<"$(source_tree "$ver" "$tmp")"
	[ -n "$src" ] || exit 1
	[ -f "$src/Makefile" ] || die "$what does not hold a kernel tree"
	info "importing $what ($S61_SRC_PKG $ver) into $S61_BASE_GIT (once per machine)"
	[ -d "$S61_BASE_GIT" ] || git init -q --bare "$S61_BASE_GIT"
	(
		base_env
		export GIT_DIR=$S61_BASE_GIT GIT_WORK_TREE=$src GIT_INDEX_FILE=$tmp/index
		# -f: the tarball is the truth, .gitignore files inside it must not hide files.
		git add -A -f .
		tree=$(git write-tree)
		commit=$(printf 'base: %s %s\n\nPristine import of %s.\n\nDebian-Version: %s\n' \
			"$S61_SRC_PKG" "$ver" "$what" "$ver" |
			git commit-tree "$tree")
		git tag "base-$ver" "$commit"
		# The default branch of clones: the first import.
		git rev-parse -q --verify refs/heads/base >/dev/null || git update-ref refs/heads/base "$commit"
	) || die "import into $S61_BASE_GIT failed"
	git -C "$S61_BASE_GIT" config gc.auto 0
	rm -rf "$tmp"
	trap - EXIT
	echo "$(date -u +%FT%TZ) import $S61_SRC_PKG $ver: $((SECONDS - t0)) s" >>"$S61_CACHE/import-times.log"
	info "imported in $((SECONDS - t0)) s"
	exec 9>&-
}

# ---------------------------------------------------------------- helpers
patch_files() {
	local d=$S61_PATCHES/$1
	[ -d "$d" ] || return 0
	find "$d" -maxdepth 1 -name '*.patch' | LC_ALL=C sort
}

# Commits of branch $1 (on top of its parent) that are not recorded in
# patches/: not reachable from the ref of the last apply/export and with no
# byte-identical patch file.
unexported_commits() {
	local b=$1 parent c synced files f out
	parent=$(stack_parent "$b")
	branch_exists "$b" || return 0
	synced=$(kgit rev-parse -q --verify "$SYNC_NS/$b" 2>/dev/null)
	files=$(patch_files "$b")
	local range
	if branch_exists "$parent" && kgit merge-base --is-ancestor "$parent" "$b"; then
		range="$parent..$b"
	else
		# Parent moved: only commits not in any other stack ref are candidates.
		range="$b --not $(for_other_refs "$b")"
	fi
	# shellcheck disable=SC2086
	for c in $(kgit rev-list --reverse $range); do
		if [ -n "$synced" ] && kgit merge-base --is-ancestor "$c" "$synced"; then
			continue
		fi
		out=$(fmt_patch --stdout -1 "$c" | sed '1s/^From [0-9a-f]* /From 0 /')
		local found=0
		for f in $files; do
			if [ "$(sed '1s/^From [0-9a-f]* /From 0 /' "$f")" = "$out" ]; then
				found=1
				break
			fi
		done
		[ $found = 1 ] || echo "$c"
	done
}

for_other_refs() {
	local b
	echo base
	for b in $(stack_branches); do
		[ "$b" = "$1" ] && break
		branch_exists "$b" && echo "$b"
		kgit rev-parse -q --verify "$SYNC_NS/$b" >/dev/null && echo "$SYNC_NS/$b"
	done
}

describe_commits() {
	local c
	for c in "$@"; do
		kgit log -1 --format='    %h %s' "$c"
	done
}

# True when every branch exists, sits on its parent and exports to exactly
# the files in patches/ (then apply has nothing to do).
stack_in_sync() {
	local b parent tmp same
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		branch_exists "$b" || return 1
		kgit merge-base --is-ancestor "$parent" "$b" || return 1
		tmp=$(mktemp -d)
		fmt_patch -q -o "$tmp" "$parent..$b" >/dev/null
		same=1
		if [ -d "$S61_PATCHES/$b" ]; then
			diff -rq -x .keep "$tmp" "$S61_PATCHES/$b" >/dev/null 2>&1 || same=0
		else
			[ -z "$(ls -A "$tmp")" ] || same=0
		fi
		rm -rf "$tmp"
		[ $same = 1 ] || return 1
	done
	return 0
}

# What 'tools/stack/stack.sh export' would undo in patches/$1/, one path a line:
# patch files no commit of the branch exports to (a hand edit, a newer
# series pulled), nor a commit of its last apply/export unless the branch
# is behind patches/ (status); and, when it is behind, its patches that
# patches/ does not have ("PATH (the branch has it, patches/ not)").
export_would_undo() {
	local b=$1 parent tmp s sp behind=0
	parent=$(stack_parent "$b")
	tmp=$(mktemp -d)
	mkdir "$tmp/b" "$tmp/s"
	fmt_patch -q -o "$tmp/b" "$parent..$b" >/dev/null || { rm -rf "$tmp"; die "format-patch of $b failed"; }
	if diff -rq -x .keep "$tmp/b" "$S61_PATCHES/$b" >/dev/null 2>&1; then
		rm -rf "$tmp"
		return 0
	fi
	if [ -z "$(unexported_commits "$b")" ]; then
		behind=1
	else
		s=$(kgit rev-parse -q --verify "$SYNC_NS/$b") || s=
		sp=$(kgit rev-parse -q --verify "$SYNC_NS/$parent") || sp=$parent
		if [ -n "$s" ] && kgit merge-base --is-ancestor "$sp" "$s"; then
			fmt_patch -q -o "$tmp/s" "$sp..$s" >/dev/null
		fi
	fi
	{
		(cd "$tmp" && find b s -name '*.patch' -exec sha256sum {} +)
		(cd "$S61_ROOT" && find "patches/$b" -maxdepth 1 -name '*.patch' -exec sha256sum {} +)
	} | awk -v behind=$behind -v dir="patches/$b/" '
		{ p = $2; sub(/^\*/, "", p) }
		p ~ /^b\// { held[$1] = 1; name[$1] = substr(p, 3); next }
		p ~ /^s\// { held[$1] = 1; next }
		{ have[$1] = 1; if (!($1 in held)) lost[p] = 1 }
		END {
			for (p in lost) print p
			if (behind) for (h in name) if (!(h in have)) print dir name[h] " (the branch has it, patches/ not)"
		}' | LC_ALL=C sort
	rm -rf "$tmp"
}

# ---------------------------------------------------------------- apply
drop_temp_refs() {
	kgit for-each-ref --format='delete %(refname)' "$TMP_NS/" | kgit update-ref --stdin
}

# Undo an apply that did not finish: abort the git am it started (never
# one it did not), drop the temporary refs, check out again what was
# checked out before. $1 = force: the checkout is apply's own (it was
# clean when apply began, and apply is still running), so a half-made
# checkout may be overwritten.
apply_cleanup() {
	local gd prev force=${1:-}
	gd=$(kgit_dir) || return 1
	if [ -e "$gd/$APPLY_MARK/am" ]; then
		[ "$(kgit_op)" != am ] || kgit am --abort >/dev/null 2>&1 ||
			warn "could not abort the git am in $S61_LINUX; run 'git -C $S61_LINUX am --abort'"
		rm -f "$gd/$APPLY_MARK/am"
	fi
	drop_temp_refs
	prev=$(cat "$gd/$APPLY_MARK/head" 2>/dev/null) || prev=
	if [ -n "$prev" ] && [ -z "$(kgit_op)" ]; then
		if branch_exists "$prev"; then
			kgit checkout -q ${force:+-f} "$prev"
		else
			kgit checkout -q ${force:+-f} --detach "$prev"
		fi || warn "could not check out $prev again; run 'git -C $S61_LINUX checkout $prev'"
	fi
	rm -rf "${gd:?}/$APPLY_MARK"
}

# On exit (a signal, a die) while apply works. A trap runs with the
# redirections of the command it interrupted (git am 2>am.err): fd 3 is
# apply's own stderr.
apply_busy=0
apply_on_exit() {
	[ $apply_busy = 1 ] || return 0
	apply_busy=0
	exec 2>&3
	warn "apply stopped before it finished; restoring the old branches"
	apply_cleanup force
	info "the stack is unchanged"
}

cmd_apply() {
	local force=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-'H'
		Usage: tools/stack/stack.sh apply [--force]
		(Re)create every branch of branch-stack.txt from patches/<branch>/ with
		git am, each on the branch before it (the first on base). Stops before
		touching anything if a branch has commits that are not exported to
		patches/ and names them; --force drops them anyway.
		The new branches are built under refs/stack/new/ on a detached HEAD and
		all moved at the end in one step: when a patch does not apply, or apply
		is interrupted (Ctrl-C, SIGTERM), the old branches stay exactly as they
		were and what was checked out is checked out again. A patch that does
		not apply is named with its branch and files, with the way to fix it.
		After a kill -9, the next apply repairs what was left (it aborts only a
		git am it started itself). Refuses while a git am, rebase, cherry-pick
		or merge of your own is in progress, and names the way out.
		H
		exit 0 ;;
		-f|--force) force=1 ;;
		*) die "apply: unknown argument $1" ;;
		esac
		shift
	done
	require_checkout
	check_stack
	check_base
	setup_gitignore
	setup_identity
	local gd op
	check_no_move apply
	gd=$(kgit_dir)
	op=$(kgit_op)
	if [ -n "$op" ] && ! { [ "$op" = am ] && [ -e "$gd/$APPLY_MARK/am" ]; }; then
		die "$(op_way_out "$op"); nothing was changed by 'tools/stack/stack.sh apply'"
	fi
	if [ -n "$(apply_leftover)" ]; then
		info "$(apply_leftover); repairing it"
		apply_cleanup
	fi
	check_clean apply
	if [ $force = 0 ] && stack_in_sync; then
		info "every branch already matches patches/; nothing to do"
		return 0
	fi

	local b lost=0 u
	for b in $(stack_branches); do
		u=$(unexported_commits "$b")
		if [ -n "$u" ]; then
			lost=1
			warn "branch $b has commits that are not in patches/$b/:"
			# shellcheck disable=SC2086
			describe_commits $u >&2
		fi
	done
	if [ $lost = 1 ]; then
		if [ $force = 1 ]; then
			warn "--force: dropping them"
		else
			die "refusing to overwrite unexported work; run 'tools/stack/stack.sh export' to keep it, or 'tools/stack/stack.sh apply --force' to drop it"
		fi
	fi

	local parent=base f n at files err=$S61_WORK/am.err
	local -A old=() new=()
	for b in $(stack_branches); do
		old[$b]=$(kgit rev-parse -q --verify "refs/heads/$b") || old[$b]=
	done
	exec 3>&2
	mkdir -p "$gd/$APPLY_MARK"
	{ kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD; } >"$gd/$APPLY_MARK/head"
	apply_busy=1
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap apply_on_exit EXIT
	drop_temp_refs
	kgit checkout -q --detach base || die "could not check out base in $S61_LINUX"
	for b in $(stack_branches); do
		n=0
		for f in $(patch_files "$b"); do
			n=$((n + 1))
			echo "$f" >"$gd/$APPLY_MARK/am"
			if ! kgit am -q --keep-cr --committer-date-is-author-date "$f" >/dev/null 2>"$err"; then
				at=$(kgit rev-parse --short HEAD)
				files=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$f" | LC_ALL=C sort -u | tr '\n' ' ')
				files=${files% }
				no_git_advice <"$err" >&2
				apply_busy=0
				apply_cleanup force
				die "patch $(basename "$f") of branch $b does not apply on $parent (files: $files); the stack is unchanged. To fix the patch: edit $f until it applies and run 'tools/stack/stack.sh apply' again; or redo it in git: 'git -C $S61_LINUX checkout -q --detach $at' (where the patch goes) and 'git -C $S61_LINUX am -3 $f', resolve, 'git -C $S61_LINUX add -f $files', 'git -C $S61_LINUX am --continue', 'git -C $S61_LINUX format-patch -1 --stdout >$f', 'git -C $S61_LINUX checkout -q -', then 'tools/stack/stack.sh apply' and 'tools/stack/stack.sh export'"
			fi
			rm -f "$gd/$APPLY_MARK/am"
		done
		new[$b]=$(kgit rev-parse HEAD)
		kgit update-ref "$TMP_NS/$b" "${new[$b]}"
		info "$b: $n patch(es) on $parent"
		parent=$b
	done
	# Every branch at once, or none: the old values must still hold.
	trap '' INT TERM
	for b in $(stack_branches); do
		if [ -n "${old[$b]}" ]; then
			echo "update refs/heads/$b ${new[$b]} ${old[$b]}"
		else
			echo "create refs/heads/$b ${new[$b]}"
		fi
		echo "update $SYNC_NS/$b ${new[$b]}"
		echo "delete $TMP_NS/$b"
	done | kgit update-ref --stdin || die "could not move the branches (did something change them meanwhile?)"
	apply_busy=0
	rm -rf "${gd:?}/$APPLY_MARK"
	kgit checkout -q "$parent"
	trap - INT TERM EXIT
	info "stack applied; checked out $parent"
}

# ---------------------------------------------------------------- export
cmd_export() {
	local from_move=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-'H'
		Usage: tools/stack/stack.sh export
		Write every branch of branch-stack.txt to patches/<branch>/ as
		git format-patch files (no commit hashes, no dates beyond the commits'
		own, no version footer), replacing what was there. Exporting an
		unchanged stack leaves the repository unchanged. A branch that is not
		based on the branch below it must be restacked first (tools/stack/stack.sh rebase).
		Refuses, writing nothing, while the checkout has uncommitted changes or
		new files, a git am/rebase/cherry-pick/merge is in progress, an apply
		was interrupted, or a branch is missing; and while patches/ holds
		changes no branch does (a branch behind patches/: a patch file edited
		by hand, a newer series pulled), which export would undo: it names the
		files; 'tools/stack/stack.sh apply' takes them (after the patch is fixed so that
		it applies), 'git checkout -- patches/...' drops them.
		H
		exit 0 ;;
		--from-move) from_move=1 ;;
		*) die "export: unknown argument $1" ;;
		esac
		shift
	done
	require_checkout
	check_stack
	check_base
	check_clean export untracked
	local b parent tmp undo=() paths
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		branch_exists "$b" || die "branch $b of branch-stack.txt does not exist in $S61_LINUX; run 'tools/stack/stack.sh apply' first"
		kgit merge-base --is-ancestor "$parent" "$b" ||
			die "branch $b is not based on $parent; run 'tools/stack/stack.sh rebase' first"
	done
	# (a move exports its new commits over the patches of the old upload,
	# which it checked were recorded before it began)
	if [ $from_move = 0 ]; then
		for b in $(stack_branches); do
			mapfile -t -O ${#undo[@]} undo < <(export_would_undo "$b")
		done
	fi
	if [ ${#undo[@]} -gt 0 ]; then
		# Dropping a change: the files of patches/ as committed (a patch
		# only the branch has, when the repository has it).
		local drop=
		paths=$({
			printf '%s\n' "${undo[@]}" | grep -v ' ('
			printf '%s\n' "${undo[@]}" | sed -n 's/ (.*//p' | { cd "$S61_ROOT" && xargs -r git ls-files -- 2>/dev/null; }
		} | tr '\n' ' ')
		[ -z "$paths" ] || drop=" To drop them: 'git -C $S61_ROOT checkout -- ${paths% }', then 'tools/stack/stack.sh export'."
		die "patches/ holds changes the branches do not (a patch file edited by hand, or a newer series); export would undo them, so it wrote nothing:$(printf '\n  %s' "${undo[@]}")
To keep them: fix the patch until it applies, then 'tools/stack/stack.sh apply' (it rebuilds the branches from patches/) and 'tools/stack/stack.sh export'.$drop"
	fi
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		tmp=$(mktemp -d)
		fmt_patch -q -o "$tmp" "$parent..$b" >/dev/null || die "format-patch of $b failed"
		mkdir -p "$S61_PATCHES/$b"
		find "$S61_PATCHES/$b" -maxdepth 1 -name '*.patch' -delete
		find "$tmp" -name '*.patch' -exec mv -t "$S61_PATCHES/$b" {} +
		rmdir "$tmp"
		[ -n "$(ls -A "$S61_PATCHES/$b")" ] || touch "$S61_PATCHES/$b/.keep"
		[ -z "$(find "$S61_PATCHES/$b" -name '*.patch' -print -quit)" ] || rm -f "$S61_PATCHES/$b/.keep"
		kgit update-ref "$SYNC_NS/$b" "refs/heads/$b"
		info "$b: $(kgit rev-list --count "$parent..$b") commit(s) -> patches/$b/"
	done
}

# ---------------------------------------------------------------- rebase
cmd_rebase() {
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-'H'
		Usage: tools/stack/stack.sh rebase [--base VERSION]
		After a branch changed, put every branch above it back on top of the
		branch below it (git rebase --onto, old base found from the reflog or
		the last apply/export). On a conflict git stops: resolve it,
		'git -C <checkout> rebase --continue', then run 'tools/stack/stack.sh rebase' again.
		--base VERSION: move the whole stack to that Debian upload instead
		(the same as 'tools/stack/stack.sh move VERSION'; see 'tools/stack/stack.sh move --help').
		H
		exit 0 ;;
		--base) [ $# -ge 2 ] || die "rebase: --base needs a VERSION"; cmd_move "$2"; return ;;
		--base=*) cmd_move "${1#--base=}"; return ;;
		*) die "rebase: unknown argument $1" ;;
		esac
	done
	require_checkout
	check_stack
	check_base
	check_clean rebase
	local b parent old
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		branch_exists "$b" || die "branch $b does not exist; run 'tools/stack/stack.sh apply'"
		if kgit merge-base --is-ancestor "$parent" "$b"; then
			continue
		fi
		old=$(kgit merge-base --fork-point "$parent" "$b" 2>/dev/null) || old=
		if [ -z "$old" ]; then
			old=$(kgit rev-parse -q --verify "$SYNC_NS/$parent") ||
				die "cannot find where $b forked from $parent; rebase it by hand"
			kgit merge-base --is-ancestor "$old" "$b" ||
				die "cannot find where $b forked from $parent; rebase it by hand"
		fi
		info "restacking $b onto $parent"
		kgit rebase -q --onto "$parent" "$old" "$b" ||
			die "rebase of $b onto $parent stopped on a conflict; $(op_way_out rebase)"
	done
	info "stack is consistent; run 'tools/stack/stack.sh export' to record it"
}

# ---------------------------------------------------------------- move
# A move keeps its state in the checkout's git dir from its start to its
# end, also while it is stopped at a conflict: to, from (versions), head
# (what was checked out), old (base and every branch before: "NAME SHA"),
# todo ("pick BRANCH COMMIT PATCH" and "tip BRANCH" lines still to do),
# tip (the commit the next patch goes on), report (a line per patch).
# The moved branches wait under refs/stack/move/ until all are done.
MOVE_MARK=s61-stack-move
MOVE_NS=refs/stack/move
# Recorded resolutions of the stack's conflicts, per upload (tools/debian/matrix.sh).
RES_DIR=$S61_ROOT/matrix

# The state directory of a move in progress, if there is one.
move_state() {
	local gd
	gd=$(kgit_dir 2>/dev/null) || return 0
	[ ! -d "$gd/$MOVE_MARK" ] || echo "$gd/$MOVE_MARK"
}

# A move in progress (stopped at a conflict, or killed), as a sentence.
move_leftover() {
	local st at=
	st=$(move_state)
	[ -n "$st" ] || return 0
	if [ -s "$st/stopped" ]; then
		at=" (stopped at patch $(cut -d' ' -f3 "$st/stopped") of branch $(cut -d' ' -f1 "$st/stopped"))"
	fi
	echo "a 'tools/stack/stack.sh move' to $S61_SRC_PKG $(cat "$st/to") is in progress in $S61_LINUX$at: resolve, 'git -C $S61_LINUX add -f FILE...', 'tools/stack/stack.sh move --continue'; or 'tools/stack/stack.sh move --abort' (everything as before the move)"
}

check_no_move() {
	local m
	m=$(move_leftover)
	[ -z "$m" ] || die "$m; nothing was changed by 'tools/stack/stack.sh $1'"
}

# branch-stack.txt with version $1 on its base line, the rest as it was.
set_stack_base_version() {
	local tmp=$S61_STACK_FILE.new
	awk -v v="$1" '!done && $1 == "base" { $3 = v; done = 1 } { print }' "$S61_STACK_FILE" >"$tmp" ||
		die "could not write $tmp"
	mv "$tmp" "$S61_STACK_FILE" || die "could not write $S61_STACK_FILE"
}

# True when commit $2 is commit $1 again (same author, date and message):
# a pick a killed move had made already.
same_change() {
	[ "$(kgit log -1 --format='%an%n%ae%n%ad%n%B' "$1")" = "$(kgit log -1 --format='%an%n%ae%n%ad%n%B' "$2")" ]
}

# The author of commit $1 for git's environment (date as the committer's
# too, like apply's git am --committer-date-is-author-date: a move makes the
# same commits on every machine).
author_env() {
	local a
	a=$(kgit log -1 --format='%an%n%ae%n%ad' --date=raw "$1") || return 1
	{
		read -r GIT_AUTHOR_NAME
		read -r GIT_AUTHOR_EMAIL
		read -r GIT_AUTHOR_DATE
	} <<<"$a"
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

# move_pick COMMIT ONTO INDEX: the change of COMMIT on top of commit ONTO,
# in the index file INDEX, without a worktree. Sets pick_result: clean
# (git apply takes it as it is), offset (the same, lines moved), fuzz (the
# context differs: git apply --3way merged it), empty (the base has the
# change already) or conflict, with pick_files (the conflicting files).
# Leaves the result in INDEX (conflicts as stages 1-3).
move_pick() {
	local c=$1 onto=$2 idx=$3 diff out
	diff=$idx.diff
	kgit diff --full-index --binary "$c^" "$c" >"$diff" || die "git diff of $c failed"
	GIT_INDEX_FILE=$idx kgit read-tree "$onto" || die "git read-tree $onto failed"
	pick_files=
	if out=$(GIT_INDEX_FILE=$idx kgit apply --cached -v "$diff" 2>&1); then
		case $out in
		*"(offset "*) pick_result=offset ;;
		*) pick_result=clean ;;
		esac
	elif GIT_INDEX_FILE=$idx kgit apply --cached --3way "$diff" >/dev/null 2>&1; then
		pick_result=fuzz
	else
		pick_result=conflict
		pick_files=$(GIT_INDEX_FILE=$idx kgit ls-files -u | cut -f2 | uniq | tr '\n' ' ')
		[ -n "$pick_files" ] ||
			pick_files=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$diff" | LC_ALL=C sort -u | tr '\n' ' ')
		pick_files=${pick_files% }
	fi
	if [ "$pick_result" != conflict ] &&
	   [ "$(GIT_INDEX_FILE=$idx kgit write-tree)" = "$(kgit rev-parse "$onto^{tree}")" ]; then
		pick_result=empty
	fi
	rm -f "$diff"
}

# A commit of the tree in INDEX $2 on parent $3, with the author, date and
# message of commit $1. Prints it.
move_commit() {
	local c=$1 idx=$2 parent=$3 tree
	tree=$(GIT_INDEX_FILE=$idx kgit write-tree) || die "git write-tree failed"
	(
		author_env "$c"
		kgit cat-file commit "$c" | sed '1,/^$/d' | kgit commit-tree "$tree" -p "$parent"
	) || die "git commit-tree failed"
}

# One report line: BRANCH/PATCH: RESULT [(files: ...)], on stdout and in
# the report of the move.
move_report() {
	local line="$1/$2: $3${4:+ (files: $4)}"
	echo "$line"
	echo "$line" >>"$move_st/report"
}

# Work through the todo of the move in $move_st. A patch goes on as the
# project has it committed when the move goes home (move_home_pick); else
# it is picked (move_pick), and when it conflicts or is empty there, the
# resolution recorded for the upload in matrix/VERSION/ is taken if there
# is a usable one (move_recorded). With move_dry=1 nothing stops: a
# conflicting file takes the patch's own version, so that the patches
# after it are tried too; else a conflict is set up in the checkout with
# git cherry-pick for the user to resolve, and move stops.
move_run() {
	local line op b c name cur idx=$move_st/index
	while IFS= read -r line <"$move_st/todo" && [ -n "$line" ]; do
		read -r op b c name <<<"$line"
		cur=$(cat "$move_st/tip")
		case $op in
		tip)
			[ "$move_dry" = 1 ] || kgit update-ref "$MOVE_NS/$b" "$cur"
			;;
		pick)
			if same_change "$c" "$cur"; then
				:
			elif move_home_pick "$b" "$c" "$name" "$cur" "$idx"; then
				move_commit "$c" "$idx" "$cur" >"$move_st/tip"
				move_report "$b" "$name" "as committed in patches/ (home)"
			else
				move_pick "$c" "$cur" "$idx"
				case $pick_result in
				conflict|empty)
					if move_recorded "$b" "$c" "$name" "$cur" "$idx"; then
						if [ "$rec_kind" = resolved ]; then
							move_commit "$c" "$idx" "$cur" >"$move_st/tip"
						fi
						move_report "$b" "$name" "$rec_kind as recorded in $rec_file"
					elif [ "$move_dry" = 1 ]; then
						move_report "$b" "$name" "$pick_result" "$pick_files"
						[ -z "$rec_why" ] || info "  (not used: $rec_why)"
						GIT_INDEX_FILE=$idx kgit ls-files -u | awk -F'\t' '
							{ split($1, m, " "); if (m[3] == 3) take[$2] = m[1] " " m[2]; seen[$2] = 1 }
							END { for (p in seen) print ((p in take) ? take[p] : "0 0000000000000000000000000000000000000000") "\t" p }' |
							GIT_INDEX_FILE=$idx kgit update-index --index-info
						move_commit "$c" "$idx" "$cur" >"$move_st/tip"
					else
						move_stop "$b" "$c" "$name" "$cur"
					fi ;;
				*)
					move_commit "$c" "$idx" "$cur" >"$move_st/tip"
					move_report "$b" "$name" "$pick_result" ;;
				esac
			fi ;;
		esac
		sed -i 1d "$move_st/todo"
	done
}

# The change of a patch file on stdin without what depends on the tree it
# goes on: from its first "diff --git" line on, the file names and the
# lines it takes out and puts in, without index lines, hunk headers and
# context lines. Two versions of a patch with the same change have the same.
change_of() {
	awk '/^diff --git / { d = 1 } d && !/^(index |@@ | |$)/'
}

# The upload of the stack as this project has it committed: the base line
# of branch-stack.txt in HEAD (empty when the project is no git repository
# of its own, e.g. a scratch copy of tools/debian/matrix.sh). Its patches/ in
# HEAD are the stack on that upload: a move there takes them as they are.
home_upload() {
	local top
	top=$(git -C "$S61_ROOT" rev-parse --show-toplevel 2>/dev/null) || return 0
	[ "$(cd "$top" && pwd -P)" = "$(cd "$S61_ROOT" && pwd -P)" ] || return 0
	git -C "$S61_ROOT" show HEAD:branch-stack.txt 2>/dev/null | awk '$1 == "base" { print $3; exit }'
}

# A move home (the state has "home"): the patch BRANCH/NAME as committed
# in the project's HEAD:patches/, when commit $2 is that patch moved away:
# the same change (the lines out and in), or the change of the resolution
# of that very patch recorded for the upload the stack is on
# (matrix/FROM/); applied as it is (git apply, no three-way merge) on
# commit $4 into the index file $5; the commit's message is kept. Returns
# 1 (nothing taken) when HEAD has no such patch, the commit is another
# change (changed by hand since it left home, or resolved by hand and not
# recorded) or the patch does not apply.
move_home_pick() {
	local b=$1 c=$2 name=$3 cur=$4 idx=$5 p=$5.home from mine rc=1 rf line
	[ -s "$move_st/home" ] || return 1
	git -C "$S61_ROOT" show "HEAD:patches/$b/$name" >"$p" 2>/dev/null || { rm -f "$p"; return 1; }
	from=$(cat "$move_st/from" 2>/dev/null) || from=$(stack_base_version)
	mine=$(fmt_patch --stdout -1 "$c" | change_of)
	rf=$RES_DIR/$from/patches/$b/$name
	if [ "$(change_of <"$p")" = "$mine" ]; then
		rc=0
	elif [ -f "$rf" ] && [ "$(change_of <"$rf")" = "$mine" ]; then
		line=$(awk -F'\t' -v p="$b/$name" '$1 == p && $3 == "resolved" { print $2 }' "$RES_DIR/$from/resolved.tsv" 2>/dev/null)
		[ "$line" != "$(sha256sum <"$p" | cut -d' ' -f1)" ] || rc=0
	fi
	if [ $rc = 0 ] && ! { GIT_INDEX_FILE=$idx kgit read-tree "$cur" && GIT_INDEX_FILE=$idx kgit apply --cached "$p" 2>/dev/null; }; then
		rc=1
	fi
	rm -f "$p"
	return $rc
}

# The resolution of patch BRANCH/NAME (commit $2) recorded for the upload
# of the move in matrix/VERSION/ (tools/debian/matrix.sh --save-resolutions):
# a line "PATCH<TAB>SHA256<TAB>resolved|dropped" of resolved.tsv, SHA256
# that of the patch it resolves, and for "resolved" the patch as resolved
# in matrix/VERSION/patches/PATCH. Taken when it is for this patch (the
# same SHA256; a resolved one also when recorded for an older version of
# the patch with the same change, the lines out and in) and, resolved,
# when it applies as it is (git apply, no three-way merge) on commit $4:
# the tree in the index file $5, rec_kind (resolved, dropped) and
# rec_file set. Else returns 1, with rec_why when a record was not taken.
move_recorded() {
	local b=$1 c=$2 name=$3 cur=$4 idx=$5 to line sha kind mine f out
	rec_kind="" rec_file="" rec_why=""
	to=$(cat "$move_st/to")
	line=$(awk -F'\t' -v p="$b/$name" '$1 == p' "$RES_DIR/$to/resolved.tsv" 2>/dev/null)
	[ -n "$line" ] || return 1
	IFS=$'\t' read -r _ sha kind _ <<<"$line"
	fmt_patch --stdout -1 "$c" >"$idx.mine" || die "format-patch of $c failed"
	mine=$(sha256sum <"$idx.mine" | cut -d' ' -f1)
	f=matrix/$to/patches/$b/$name
	case $kind in
	dropped)
		if [ "$sha" = "$mine" ]; then
			rec_kind=dropped rec_file=matrix/$to/resolved.tsv
		else
			rec_why="matrix/$to/resolved.tsv drops another version of the patch"
		fi ;;
	resolved)
		if [ ! -f "$S61_ROOT/$f" ]; then
			rec_why="matrix/$to/resolved.tsv names $f, which is missing"
		elif [ "$sha" != "$mine" ] && [ "$(change_of <"$S61_ROOT/$f")" != "$(change_of <"$idx.mine")" ]; then
			rec_why="$f resolves another version of the patch (other lines out or in); it needs resolving again ('tools/debian/matrix.sh --resolve $to')"
		elif ! GIT_INDEX_FILE=$idx kgit read-tree "$cur" ||
		     ! out=$(GIT_INDEX_FILE=$idx kgit apply --cached "$S61_ROOT/$f" 2>&1); then
			rec_why="$f does not apply on $to as it is: $(printf '%s\n' "$out" | head -n 1)"
		else
			rec_kind=resolved rec_file=$f
		fi ;;
	*) rec_why="matrix/$to/resolved.tsv: '$kind' for the patch is neither resolved nor dropped" ;;
	esac
	rm -f "$idx.mine"
	[ -n "$rec_kind" ]
}

# Git's own advice about the cherry-pick or am a tool of ours ran ("hint:"
# lines, "run git ... --continue"): dropped from its output (stdin), the
# tool says what to do. (advice.mergeConflict=false does it from git 2.45.)
no_git_advice() {
	grep -v -e '^hint:' -e '^error: could not apply ' -e '^When you have resolved this problem, run "git am --continue"' \
		-e '^If you prefer to skip this patch, run "git am --skip"' -e '^To restore the original branch and stop patching, run "git am --abort"' || :
}

# A patch that does not go on the new base: git cherry-pick it in the
# checkout (git's merge may do what git apply --3way could not); if that
# stops too, leave the conflict there for the user and stop the move.
move_stop() {
	local b=$1 c=$2 name=$3 cur=$4 files to k="git -C $S61_LINUX"
	to=$(cat "$move_st/to")
	kgit checkout -q -f --detach "$cur" || die "could not check out $cur in $S61_LINUX"
	if (author_env "$c" && kgit -c advice.mergeConflict=false cherry-pick --allow-empty-message "$c") >"$move_st/pick.out" 2>&1; then
		kgit rev-parse HEAD >"$move_st/tip"
		move_report "$b" "$name" "fuzz" "merged by git cherry-pick"
		return 0
	fi
	files=$(kgit diff --name-only --diff-filter=U | tr '\n' ' ')
	files=${files% }
	echo "$b $c $name" >"$move_st/stopped"
	move_busy=0
	exec 2>&3
	no_git_advice <"$move_st/pick.out" >&2
	if [ -z "$files" ]; then
		move_report "$b" "$name" "empty (already in $to)"
		die "patch $name of branch $b is empty on $S61_SRC_PKG $to (its change is in the new base already)${rec_why:+; the recorded resolution is not used: $rec_why}; the old stack is untouched. Drop it: 'tools/stack/stack.sh move --skip'; or give up: 'tools/stack/stack.sh move --abort' (everything as before the move)"
	fi
	move_report "$b" "$name" "conflict" "$files"
	die "patch $name of branch $b conflicts with $S61_SRC_PKG $to (files: $files)${rec_why:+; the recorded resolution is not used: $rec_why}; the old stack is untouched. Resolve it in $S61_LINUX: edit the files, '$k add -f $files', then 'tools/stack/stack.sh move --continue' (the patch as resolved goes on, the rest follows); or 'tools/stack/stack.sh move --skip' to drop the patch; or 'tools/stack/stack.sh move --abort' (everything as before the move)"
}

# The files a move wrote into the checkout that no commit there holds:
# untracked now, not before the move (its state: untracked), and files of
# the other tree (the new base, the move's tip, the patch it stopped at).
# A checkout or cherry-pick interrupted in the middle leaves such files.
move_strays() {
	local st=$1 rev
	kgit -c core.quotePath=false ls-files --others | LC_ALL=C sort >"$st/untracked.now"
	LC_ALL=C sort "$st/untracked" >"$st/untracked.before" 2>/dev/null || : >"$st/untracked.before"
	LC_ALL=C comm -23 "$st/untracked.now" "$st/untracked.before" >"$st/untracked.new"
	[ -s "$st/untracked.new" ] || return 0
	for rev in "$(cat "$st/newbase" 2>/dev/null)" "$(cat "$st/tip" 2>/dev/null)" "$(cut -d' ' -f2 "$st/stopped" 2>/dev/null)"; do
		[ -z "$rev" ] || kgit -c core.quotePath=false ls-tree -r --name-only "$rev" 2>/dev/null
	done | LC_ALL=C sort -u | LC_ALL=C comm -12 "$st/untracked.new" -
}

# Drop what a move left (its cherry-pick, refs, state, the files it wrote
# of the other tree) and check out again what was checked out before it:
# the stack as before the move.
move_cleanup() {
	local st prev strays
	st=$(move_state)
	[ -n "$st" ] || return 0
	[ ! -e "$(kgit_dir)/CHERRY_PICK_HEAD" ] || kgit cherry-pick --abort >/dev/null 2>&1 ||
		warn "could not abort the cherry-pick in $S61_LINUX"
	kgit for-each-ref --format='delete %(refname)' "$MOVE_NS/" | kgit update-ref --stdin
	prev=$(cat "$st/head" 2>/dev/null) || prev=
	if [ -n "$prev" ]; then
		if branch_exists "$prev"; then
			kgit checkout -q -f "$prev"
		else
			kgit checkout -q -f --detach "$prev"
		fi || warn "could not check out $prev again; run 'git -C $S61_LINUX checkout $prev'"
	fi
	strays=$(move_strays "$st")
	if [ -n "$strays" ]; then
		(
			cd "$S61_LINUX" || exit 1
			printf '%s\n' "$strays" | xargs -r -d '\n' rm -f --
			printf '%s\n' "$strays" | sed -n 's|/[^/]*$||p' | LC_ALL=C sort -ru |
				xargs -r -d '\n' rmdir -p --ignore-fail-on-non-empty -- 2>/dev/null
			true
		) || warn "could not remove the files the move wrote: $(printf '%s\n' "$strays" | head -5 | tr '\n' ' ')..."
		info "removed $(printf '%s\n' "$strays" | wc -l) file(s) the move had written of the other tree (e.g. $(printf '%s\n' "$strays" | head -1))"
	fi
	rm -rf "${st:?}"
}

# On exit (a signal, a die) while a move works: as if it never started.
move_busy=0
move_on_exit() {
	[ $move_busy = 1 ] || return 0
	move_busy=0
	exec 2>&3
	# (a second Ctrl-C may stop the restore: its state stays, status names
	# it and 'move --abort' finishes it; INT ignored here would not stop
	# git's own handler, which drops its index.lock and goes on)
	warn "move stopped before it finished; restoring the old stack"
	move_cleanup
	info "the stack is unchanged (still on $S61_SRC_PKG $(stack_base_version))"
}

move_traps() {
	exec 3>&2
	move_busy=1
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap move_on_exit EXIT
}

# All done: base and every branch in one transaction (only if none changed
# meanwhile), branch-stack.txt, then export.
move_finish() {
	local to from prev b name sha
	to=$(cat "$move_st/to")
	from=$(cat "$move_st/from")
	prev=$(cat "$move_st/head")
	trap '' INT TERM
	move_busy=0
	kgit symbolic-ref -q HEAD >/dev/null && kgit checkout -q --detach
	{
		while read -r name sha; do
			if [ "$name" = base ]; then
				echo "update refs/heads/base $(cat "$move_st/newbase") $sha"
			else
				echo "update refs/heads/$name $(kgit rev-parse "$MOVE_NS/$name") $sha"
				echo "update $SYNC_NS/$name $(kgit rev-parse "$MOVE_NS/$name")"
				echo "delete $MOVE_NS/$name"
			fi
		done <"$move_st/old"
	} | kgit update-ref --stdin ||
		die "could not move the branches (did something change them during the move?); 'tools/stack/stack.sh move --abort' leaves everything as before"
	set_stack_base_version "$to"
	rm -rf "${move_st:?}"
	case $prev in
	base) ;;
	*) stack_has_branch "$prev" || prev=$(stack_top) ;;
	esac
	kgit checkout -q "$prev" || warn "could not check out $prev"
	info "moved the stack from $S61_SRC_PKG $from to $to; branch-stack.txt says $to; exporting"
	cmd_export --from-move
	trap - INT TERM EXIT
}

# The todo of a move of the stack as it is in the checkout: the commits of
# each branch, named as export names their patches.
move_todo() {
	local b parent tmp c i names
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		tmp=$(mktemp -d)
		fmt_patch -q -o "$tmp" "$parent..$b" >/dev/null || die "format-patch of $b failed"
		mapfile -t names < <(cd "$tmp" && find . -name '*.patch' | sed 's|^\./||' | LC_ALL=C sort)
		rm -rf "$tmp"
		i=0
		for c in $(kgit rev-list --reverse "$parent..$b"); do
			echo "pick $b $c ${names[$i]}"
			i=$((i + 1))
		done
		echo "tip $b"
	done
}

# The commit of the import of version $1 (importing it first if needed).
move_target() {
	local c
	import_base "$1"
	c=$(git -C "$S61_BASE_GIT" rev-parse -q --verify "refs/tags/base-$1^{commit}") ||
		die "no tag base-$1 in $S61_BASE_GIT"
	kgit cat-file -e "$c" || die "$S61_LINUX does not see the objects of $S61_BASE_GIT (objects/info/alternates)"
	echo "$c"
}

cmd_move() {
	local to='' what=move dry=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-'H'
		Usage: tools/stack/stack.sh move VERSION [--dry-run]
		       tools/stack/stack.sh move --continue | --skip | --abort
		Move the whole stack to another upload of the Debian source package
		(e.g. 6.1.176-1; 'apt-cache madison linux-source-6.1' lists them):
		imports VERSION if needed (tools/stack/stack.sh init says from where), puts every
		patch of every branch, in order, on it, and when all went on: moves
		base and every branch in one step, writes VERSION into branch-stack.txt
		and exports patches/. Until then the branches, base, branch-stack.txt
		and patches/ stay as they were; Ctrl-C or SIGTERM leaves them so, and
		the checkout without a file of the other upload. The stack must be
		recorded first (tools/stack/stack.sh status says so).
		Prints a line per patch: clean, offset (lines moved), fuzz (the context
		differs, a three-way merge took it), conflict (files), empty (already in
		the new base). A patch that conflicts or is empty there takes the
		resolution recorded for VERSION in matrix/VERSION/ (resolved.tsv, the
		patches as resolved: tools/debian/matrix.sh --save-resolutions) when it is
		one of this patch and the resolved patch applies as it is: "resolved as
		recorded in matrix/VERSION/patches/BRANCH/PATCH" ("dropped as recorded"
		for a patch recorded as dropped). A move home, to the upload of the
		stack committed in this project (branch-stack.txt in git's HEAD), takes
		each patch as HEAD's patches/ has it ("as committed in patches/ (home)")
		unless it changed since: the branches come out as 'tools/stack/stack.sh apply'
		of those patches makes them, without a conflict. At the first conflict
		without a usable record it stops with the conflict in the checkout and
		says so:
		  --continue  after resolving and 'git add -f FILE...': go on
		  --skip      drop the patch that stopped the move, go on
		  --abort     everything exactly as before the move
		--dry-run: only the lines, nothing changes (not even the checkout);
		after a conflict the later patches are tried on the patch's own version
		of the conflicting files. Exit 0 when every patch goes on, 1 if not.
		'tools/stack/stack.sh rebase --base VERSION' is the same as 'move VERSION'.
		H
		exit 0 ;;
		--continue|--skip|--abort) what=${1#--} ;;
		-n|--dry-run) dry=1 ;;
		-*) die "move: unknown option $1" ;;
		*) [ -z "$to" ] || die "move: one VERSION only"; to=$1 ;;
		esac
		shift
	done
	require_checkout
	check_stack
	move_dry=$dry
	if [ "$what" != move ]; then
		if [ -n "$to" ] || [ $dry = 1 ]; then
			die "move: --$what takes no VERSION nor --dry-run"
		fi
		move_st=$(move_state)
		[ -n "$move_st" ] || die "no 'tools/stack/stack.sh move' is in progress in $S61_LINUX"
		"move_$what"
		return
	fi
	[ -n "$to" ] || die "move: which version? e.g. 'tools/stack/stack.sh move 6.1.176-1' ('apt-cache madison $S61_SRC_PKG' lists them)"
	case $to in
	*[!0-9A-Za-z.+~:-]*|[!0-9]*) die "move: '$to' is not a Debian version" ;;
	esac
	check_base
	local from
	from=$(stack_base_version)
	if [ $dry = 1 ]; then
		move_dry_run "$to"
		return
	fi
	check_clean move
	if [ "$to" = "$from" ]; then
		info "the stack is on $S61_SRC_PKG $to already; nothing to do"
		return 0
	fi
	stack_in_sync ||
		die "the branches and patches/ differ ('tools/stack/stack.sh status' says how): a move starts from a recorded stack; run 'tools/stack/stack.sh export' (or 'tools/stack/stack.sh apply') first"
	local newbase b prev t0=$SECONDS
	# (in $(...) a die ends only the subshell: stop here, at its one line)
	newbase=$(move_target "$to") || exit 1
	move_st=$(kgit_dir)/$MOVE_MARK
	mkdir "$move_st" || die "could not make $move_st"
	# (what is untracked before: a restore removes only the files it wrote)
	kgit -c core.quotePath=false ls-files --others >"$move_st/untracked"
	echo "$to" >"$move_st/to"
	echo "$from" >"$move_st/from"
	echo "$newbase" >"$move_st/newbase"
	echo "$newbase" >"$move_st/tip"
	: >"$move_st/report"
	{ kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD; } >"$move_st/head"
	move_traps
	{
		echo "base $(kgit rev-parse base)"
		for b in $(stack_branches); do
			echo "$b $(kgit rev-parse "refs/heads/$b")"
		done
	} >"$move_st/old"
	move_todo >"$move_st/todo"
	move_home_state "$to" "$from"
	info "moving the stack from $S61_SRC_PKG $from to $to$(move_home_note)"
	move_run
	move_finish
	info "move took $((SECONDS - t0)) s"
}

# The move to $1 from $2 goes home (to the upload of the committed stack,
# from another one): "home" in its state.
move_home_state() {
	if [ "$1" != "$2" ] && [ "$1" = "$(home_upload)" ]; then
		echo "$1" >"$move_st/home"
	fi
}

move_home_note() {
	[ ! -s "$move_st/home" ] ||
		echo " (home: the upload of the stack committed in this project; its patches/ as committed)"
}

move_continue() {
	local b c name cur
	[ -s "$move_st/stopped" ] || die "the move was not stopped at a conflict (killed?): 'tools/stack/stack.sh move --abort', then move again"
	read -r b c name <"$move_st/stopped"
	cur=$(cat "$move_st/tip")
	if [ -e "$(kgit_dir)/CHERRY_PICK_HEAD" ]; then
		local unmerged
		unmerged=$(kgit diff --name-only --diff-filter=U | tr '\n' ' ')
		[ -z "$unmerged" ] || die "still unmerged: ${unmerged% }; resolve them, 'git -C $S61_LINUX add -f FILE...', then 'tools/stack/stack.sh move --continue'"
		(author_env "$c" && kgit -c core.editor=true -c advice.mergeConflict=false cherry-pick --continue) 2>&1 | no_git_advice >&2 ||
			die "git cherry-pick --continue failed (if the patch is empty now: 'tools/stack/stack.sh move --skip')"
	fi
	[ -z "$(uncommitted)" ] ||
		die "the checkout has changes the resolved patch does not hold; commit them ('git -C $S61_LINUX commit --amend -a') or drop them, then 'tools/stack/stack.sh move --continue'"
	move_traps
	if [ "$(kgit rev-parse HEAD)" != "$cur" ]; then
		kgit rev-parse HEAD >"$move_st/tip"
		move_report "$b" "$name" "conflict resolved"
		sed -i 1d "$move_st/todo"
	fi
	rm -f "$move_st/stopped"
	move_run
	move_finish
}

move_skip() {
	local b c name
	[ -s "$move_st/stopped" ] || die "the move was not stopped at a patch; nothing to skip"
	read -r b c name <"$move_st/stopped"
	[ ! -e "$(kgit_dir)/CHERRY_PICK_HEAD" ] || kgit cherry-pick --abort >/dev/null 2>&1 ||
		die "could not abort the cherry-pick of $name"
	kgit checkout -q -f --detach "$(cat "$move_st/tip")"
	move_report "$b" "$name" "dropped (--skip)"
	sed -i 1d "$move_st/todo"
	rm -f "$move_st/stopped"
	move_traps
	move_run
	move_finish
}

move_abort() {
	move_cleanup
	info "move aborted; the stack is as before (on $S61_SRC_PKG $(stack_base_version))"
}

# move --dry-run: the todo worked through in a temporary directory, on no
# checkout; only objects are written. Exit 0 when every patch goes on.
move_dry_run() {
	local to=$1
	move_st=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$move_st'" EXIT
	local b
	for b in $(stack_branches); do
		branch_exists "$b" || die "branch $b does not exist; run 'tools/stack/stack.sh apply' first"
		kgit merge-base --is-ancestor "$(stack_parent "$b")" "$b" ||
			die "branch $b is not on $(stack_parent "$b"); run 'tools/stack/stack.sh rebase' first"
	done
	move_target "$to" >"$move_st/tip" || exit 1
	echo "$to" >"$move_st/to"
	move_todo >"$move_st/todo"
	move_home_state "$to" "$(stack_base_version)"
	info "dry run: the stack on $S61_SRC_PKG $to$(move_home_note) (nothing changes)"
	move_run
	if grep -q ': \(conflict\|empty\)' "$move_st/report"; then
		info "dry run: $(grep -c ': \(conflict\|empty\)' "$move_st/report") patch(es) do not go on $to as they are"
		return 1
	fi
	info "dry run: every patch goes on $to"
}

# ---------------------------------------------------------------- check-upstream
# Exit statuses of check-upstream (README, docs/debian-versions.md).
CU_UP_TO_DATE=0 CU_MOVES=10 CU_CONFLICTS=11 CU_ERROR=2

cmd_check_upstream() {
	local update=1
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/stack/stack.sh check-upstream [--no-update]
		Asks apt which $S61_SRC_PKG versions exist ('apt-cache madison'; when
		apt's package lists are missing or older than a week it runs
		'apt-get update' first and says so, unless --no-update), says whether
		one is newer than branch-stack.txt's, and if so whether the stack moves
		to the newest cleanly: a dry run ('tools/stack/stack.sh move VERSION --dry-run';
		it imports the version, nothing of the stack or the checkout changes).
		Exit status, for cron or CI:
		  $CU_UP_TO_DATE   up to date: no newer upload
		  $CU_MOVES  a newer upload, and every patch goes on it
		  $CU_CONFLICTS  a newer upload, and a patch conflicts (or is empty) there
		  $CU_ERROR   error (apt, download, no checkout: run 'make stack' first)
		S61_MADISON=FILE reads the versions from FILE (the output of
		'apt-cache madison $S61_SRC_PKG') instead of asking apt.
		H
		exit 0 ;;
		--no-update) update=0 ;;
		*) echo "check-upstream: unknown argument $1" >&2; exit $CU_ERROR ;;
		esac
		shift
	done
	local rc
	(check_upstream "$update")
	rc=$?
	case $rc in
	"$CU_UP_TO_DATE"|"$CU_MOVES"|"$CU_CONFLICTS") ;;
	*) rc=$CU_ERROR ;;
	esac
	exit "$rc"
}

# The versions of the source package apt knows, one a line.
archive_versions() {
	local update=$1 out
	if [ -n "${S61_MADISON:-}" ]; then
		out=$(cat "$S61_MADISON") || die "cannot read S61_MADISON=$S61_MADISON"
	else
		if [ "$update" = 1 ] &&
		   [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mtime -7 2>/dev/null | head -1)" ]; then
			info "apt's package lists are missing or older than a week: running apt-get update"
			apt-get update -q >&2 || die "apt-get update failed"
		fi
		out=$(apt-cache madison "$S61_SRC_PKG") || die "apt-cache madison $S61_SRC_PKG failed"
	fi
	printf '%s\n' "$out" | awk -F'|' 'NF >= 3 { v = $2; gsub(/[ \t]/, "", v); if (v != "" && !seen[v]++) print v }'
}

check_upstream() {
	local cur v vers newest='' newer=()
	cur=$(stack_base_version)
	[ -n "$cur" ] || die "branch-stack.txt has no 'base <package> <version>' line"
	vers=$(archive_versions "$1") || exit $CU_ERROR
	[ -n "$vers" ] || die "apt knows no version of $S61_SRC_PKG"
	for v in $vers; do
		if dpkg --compare-versions "$v" gt "$cur"; then
			newer+=("$v")
			if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
				newest=$v
			fi
		fi
	done
	if [ -z "$newest" ]; then
		echo "up to date: the stack is on $S61_SRC_PKG $cur, the archive has nothing newer"
		exit $CU_UP_TO_DATE
	fi
	echo "newer upload: $S61_SRC_PKG $newest (the stack is on $cur; newer: ${newer[*]})"
	require_checkout
	check_base
	if cmd_move "$newest" --dry-run; then
		echo "moves cleanly: 'tools/stack/stack.sh move $newest'"
		exit $CU_MOVES
	fi
	echo "conflicts: 'tools/stack/stack.sh move $newest' will stop at the first one above"
	exit $CU_CONFLICTS
}

# ---------------------------------------------------------------- status
cmd_status() {
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-'H'
		Usage: tools/stack/stack.sh status
		Per branch: commits on top of the branch below, whether patches/ holds
		exactly them (exported), holds a newer series than the branch, every
		commit of which came from patches/ or went there (behind: apply), or
		not (NOT EXPORTED), and whether the checkout is dirty. Exits 1 if
		branch-stack.txt and patches/ disagree, anything is not exported, a
		branch is behind patches/ or not on its parent, or the checkout has
		uncommitted changes or new files, is in the middle of an
		am/rebase/cherry-pick/merge or of an interrupted apply; 0 when all is
		recorded (also when this clone has no kernel checkout yet). A new file
		that is a file of an imported upload, byte for byte (left by a move
		that was interrupted), is named as one to remove, never to commit.
		H
		exit 0 ;;
		*) die "status: unknown argument $1" ;;
		esac
	done
	check_stack
	if [ ! -d "$S61_LINUX/.git" ]; then
		info "no kernel checkout yet ($S61_LINUX); nothing to export"
		return 0
	fi
	local bad=0 b parent n state tmp
	printf '%-18s %8s  %s\n' BRANCH COMMITS STATE
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		if ! branch_exists "$b"; then
			printf '%-18s %8s  %s\n' "$b" - "missing (tools/stack/stack.sh apply)"
			[ -z "$(patch_files "$b")" ] || bad=1
			continue
		fi
		if ! kgit merge-base --is-ancestor "$parent" "$b"; then
			printf '%-18s %8s  %s\n' "$b" ? "NOT ON $parent (tools/stack/stack.sh rebase)"
			bad=1
			continue
		fi
		n=$(kgit rev-list --count "$parent..$b")
		tmp=$(mktemp -d)
		fmt_patch -q -o "$tmp" "$parent..$b" >/dev/null
		if diff -rq -x .keep "$tmp" "$S61_PATCHES/$b" >/dev/null 2>&1 ||
		   { [ "$n" = 0 ] && [ -z "$(patch_files "$b")" ]; }; then
			state=exported
		elif [ -z "$(unexported_commits "$b")" ]; then
			# Every commit came from patches/ (last apply) or went there
			# (last export): patches/ moved on (a pull, a hand edit). Not
			# the stack of patches/, and export would undo patches/.
			state="behind patches/ (tools/stack/stack.sh apply; or drop the change: git checkout -- patches/$b/)"
			bad=1
		else
			state="NOT EXPORTED (tools/stack/stack.sh export)"
			bad=1
		fi
		rm -rf "$tmp"
		printf '%-18s %8s  %s\n' "$b" "$n" "$state"
	done
	local op left dirty mv strays
	op=$(kgit_op)
	left=$(apply_leftover)
	mv=$(move_leftover)
	dirty=$(uncommitted untracked)
	strays=
	[ -z "$dirty" ] || [ -n "$mv" ] || strays=$(printf '%s\n' "$dirty" | stray_files)
	if [ -n "$mv" ]; then
		echo "checkout: $mv"
		op=move
		bad=1
	elif [ -n "$op" ]; then
		echo "checkout: $(op_way_out "$op")"
		bad=1
	fi
	if [ -n "$left" ]; then
		echo "checkout: $left; run 'tools/stack/stack.sh apply' to repair it"
		bad=1
	fi
	if [ -n "$strays" ]; then
		echo "checkout: $(strays_advice "$strays")"
		# (the rest: changes of one's own)
		dirty=$(printf '%s\n' "$dirty" | awk -F'\t' 'NR == FNR { stray["?? " $2] = 1; next } !($0 in stray)' <(printf '%s\n' "$strays") -)
		bad=1
	fi
	if [ -n "$dirty" ] && [ -z "$op" ]; then
		echo "checkout: uncommitted changes in $S61_LINUX (commit them, new files with 'git add -f', then 'tools/stack/stack.sh export'):"
		printf '%s\n' "$dirty" | head -20 | sed 's/^/    /'
		bad=1
	fi
	[ -n "$op$left$dirty$strays" ] ||
		echo "checkout: clean, on $(kgit rev-parse --abbrev-ref HEAD)"
	return $bad
}

cmd_path() {
	case ${1:-} in
	-h|--help) echo "Usage: tools/stack/stack.sh path  -- print the kernel checkout's path"; exit 0 ;;
	esac
	echo "$S61_LINUX"
}

[ $# -gt 0 ] || { usage; exit 2; }
cmd=$1
shift
case $cmd in
-h|--help|help) usage ;;
init|apply|export|rebase|move|status|path) "cmd_$cmd" "$@" ;;
check-upstream) cmd_check_upstream "$@" ;;
*) usage >&2; die "unknown command '$cmd'" ;;
esac
