#!/usr/bin/env bash
# The stack in Debian's own packaging format: quilt patches with DEP-3
# headers for Debian's 'linux' source package, and that source package.
#
# Usage: tools/debian/quilt.sh COMMAND [options]
#   export DIR    write patches/ (branch-stack.txt's order) as quilt patches with
#                 DEP-3 headers into DIR/debian/patches/features/all/lockless-shrink/
#                 and their series lines into DIR/debian/patches/series-lockless-shrink
#   source [VER]  download Debian's 'linux' source package VER (default: the base
#                 version of branch-stack.txt) into the cache once; print its .dsc
#   versions      the versions of the source package 'linux' the archive lists,
#                 one a line (S61_MADISON_SRC=FILE: read them from FILE, the
#                 output of 'apt-cache madison linux' with deb-src entries)
# Run 'tools/debian/quilt.sh COMMAND --help' for a command's options.
# Reads patches/ only (the source of truth): no kernel checkout, no git.
. "$(dirname "$0")/../lib/lib.sh"

# Where the exported patches go inside a source package, and the series file
# of those lines (the kernel team's layout: debian/patches/features/all/...).
DQ_SUBDIR=features/all/lockless-shrink
DQ_FRAGMENT=series-lockless-shrink
# The source packages and a private apt configuration (deb-src entries for
# the mirrors the host takes linux-source from; the host's sources untouched).
DQ_CACHE=$S61_CACHE/debian-src

usage() {
	sed -n '2,15s/^# \{0,1\}//p' "$0"
}

# dep3 REL: patch file patches/REL (git format-patch mail) on stdin, the
# same change with DEP-3 headers on stdout: Description (subject, then the
# whole message as continuation lines), Author and Origin (the upstream
# commit the body names: "Upstream commit ID (...), by NAME <MAIL>" and
# "commit FULLID upstream."; a patch without one is ours: its From, Origin
# other), Forwarded (not-needed for an upstream commit, else no), then the
# diffstat and the diff as they are.
dep3() {
	awk -v rel="$1" '
	function fail(msg) { print "debian-quilt: error: patches/" rel ": " msg > "/dev/stderr"; bad = 1; exit 1 }
	state == 0 && /^From [0-9a-f]+ / && NR == 1 { next }
	state == 0 && /^[ \t]/ && last != "" { hdr[last] = hdr[last] " " substr($0, 2); next }
	state == 0 && /^[A-Za-z-]+: / {
		last = tolower(substr($0, 1, index($0, ":") - 1))
		hdr[last] = substr($0, index($0, ":") + 2); next
	}
	state == 0 && /^$/ { state = 1; next }
	state == 0 { fail("line " NR " is neither a mail header nor the blank line after them") }
	state == 1 && /^---$/ { state = 2; diff[++nd] = $0; next }
	state == 1 { body[++nb] = $0; next }
	state == 2 { diff[++nd] = $0 }
	END {
		if (bad) exit 1
		if (state != 2) fail("no \"---\" line after the message: not a git format-patch mail (tools/stack/stack.sh export writes them)")
		subj = hdr["subject"]
		if (subj == "") fail("no Subject header")
		if (index(subj, "=?")) fail("an RFC 2047 encoded Subject, which this tool does not decode")
		sub(/^\[PATCH[^]]*\] */, "", subj)
		while (nb > 0 && body[nb] == "") nb--
		for (i = 1; i <= nb; i++) {
			if (body[i] ~ /^commit [0-9a-f]+ upstream\.$/) full = substr(body[i], 8, length(body[i]) - 17)
			if (up == "" && body[i] ~ /^Upstream commit [0-9a-f]+ /) {
				s = substr(body[i], 17); up = substr(s, 1, index(s, " ") - 1)
				joined = body[i]
				for (k = i + 1; k <= nb && body[k] != ""; k++) joined = joined " " body[k]
				if (match(joined, /\), by [^<]*<[^>]*>/)) author = substr(joined, RSTART + 6, RLENGTH - 6)
			}
		}
		if (full != "" && up != "" && index(full, up) != 1) fail("\"commit " full " upstream.\" is not the upstream commit " up " the body names")
		if (full != "") up = full
		if (up != "" && author == "") fail("\"Upstream commit " up "\" names no author (\"), by NAME <MAIL>\")")
		printf "Description: %s\n", subj
		for (i = 1; i <= nb; i++) printf " %s\n", (body[i] == "" ? "." : body[i])
		if (up != "") {
			printf "Author: %s\n", author
			printf "Origin: backport, https://git.kernel.org/linus/%s\n", up
			printf "Forwarded: not-needed\n"
		} else {
			f = hdr["from"]; gsub(/"/, "", f)
			if (f == "") fail("no From header")
			printf "Author: %s\n", f
			printf "Origin: other, lockless shrink 6.1 series, patches/%s\n", rel
			printf "Forwarded: no\n"
		}
		printf "\n"
		for (i = 1; i <= nd; i++) print diff[i]
	}'
}

cmd_export() {
	local dir=
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/debian/quilt.sh export DIR
		Write every patch of patches/, branch by branch in branch-stack.txt's
		order, as a quilt patch with DEP-3 headers (Description, Author, Origin,
		Forwarded) into DIR/debian/patches/$DQ_SUBDIR/NNNN-NAME.patch
		(NNNN counts through the whole stack), and their series lines into
		DIR/debian/patches/$DQ_FRAGMENT. DIR is typically an unpacked 'linux'
		source package: append the fragment to its debian/patches/series
		(cat debian/patches/$DQ_FRAGMENT >>debian/patches/series), or give
		the patch files to debian/bin/test-patches (docs/debian-packaging.md).
		Earlier exports in that folder are replaced. Reads patches/ only.
		H
		exit 0 ;;
		-*) die "export: unknown option $1 (see --help)" ;;
		*) [ -z "$dir" ] || die "export: one DIR only (got '$dir' and '$1')"
		   dir=$1 ;;
		esac
		shift
	done
	[ -n "$dir" ] || die "export: no DIR given (usage: tools/debian/quilt.sh export DIR; e.g. an unpacked linux source package)"
	[ -d "$dir" ] || die "export: $dir is not a directory (make it first, or give an unpacked linux source package)"
	local out=$dir/debian/patches/$DQ_SUBDIR b f n=0 name tmp files=()
	[ -n "$(stack_branches)" ] || die "branch-stack.txt names no branch: nothing to export"
	for b in $(stack_branches); do
		[ -d "$S61_PATCHES/$b" ] || die "branch $b of branch-stack.txt has no folder patches/$b (run 'tools/stack/stack.sh export' in a clone with the branch, or fix branch-stack.txt)"
		mapfile -t files < <(find "$S61_PATCHES/$b" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
		[ ${#files[@]} -gt 0 ] || die "patches/$b holds no *.patch (run 'tools/stack/stack.sh export' in a clone with the branch, or drop $b from branch-stack.txt)"
	done
	mkdir -p "$out" || die "cannot make $out"
	tmp=$(mktemp -d "$dir/debian/patches/.export.XXXXXX") || die "cannot write into $dir/debian/patches"
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	for b in $(stack_branches); do
		while IFS= read -r f; do
			n=$((n + 1))
			name=$(printf '%04d-%s' "$n" "$(basename "${f#"$S61_PATCHES/$b/"}" | sed 's/^[0-9]*-//')")
			# shellcheck disable=SC2094  # reads patches/, writes $tmp
			dep3 "$b/$(basename "$f")" <"$f" >"$tmp/$name" || exit 1
			echo "$DQ_SUBDIR/$name" >>"$tmp/series"
		done < <(find "$S61_PATCHES/$b" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
	done
	find "$out" -maxdepth 1 -name '*.patch' -delete
	if ! mv "$tmp"/*.patch "$out/" || ! mv "$tmp/series" "$dir/debian/patches/$DQ_FRAGMENT"; then
		die "cannot write into $out"
	fi
	rm -rf "$tmp"
	trap - EXIT
	info "wrote $n patches of $(stack_branches | wc -l) branches into $out, series lines in $dir/debian/patches/$DQ_FRAGMENT"
}

# The private apt configuration under $DQ_CACHE/apt: a deb-src line for
# each mirror and suite the host's own sources take $S61_SRC_PKG from
# (apt-cache madison), its own lists and cache. Prints the apt.conf path.
apt_conf() {
	local a=$DQ_CACHE/apt
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/sources.list.d" || die "cannot make $a"
	apt-cache madison "$S61_SRC_PKG" 2>/dev/null |
		awk -F'|' '{ split($3, a, " "); n = split(a[2], s, "/"); if (n == 2) print "deb-src " a[1] " " s[1] " " s[2] }' |
		sort -u >"$a/sources.list.new"
	[ -s "$a/sources.list.new" ] ||
		die "the host's apt sources offer no $S61_SRC_PKG ('apt-cache madison $S61_SRC_PKG' is empty): run 'apt-get update', or add the Debian mirror that carries it to /etc/apt/sources.list"
	mv "$a/sources.list.new" "$a/sources.list"
	cat >"$a/apt.conf" <<-C
	Dir::Etc::SourceList "$a/sources.list";
	Dir::Etc::SourceParts "$a/sources.list.d";
	Dir::State::Lists "$a/lists";
	Dir::Cache "$a/cache";
	APT::Sandbox::User "root";
	C
	echo "$a/apt.conf"
}

# Do the deb-src lists (APT_CONFIG set) offer the source package linux $1?
has_source() {
	awk -F'|' -v v="$1" '{ gsub(/ /, "", $2) } $2 == v && $3 ~ / Sources$/ { f = 1 } END { exit !f }' \
		<<<"$(apt-cache madison linux 2>/dev/null)"
}

cmd_source() {
	local ver=
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/debian/quilt.sh source [VERSION]
		Download Debian's 'linux' source package VERSION (default: the base of
		branch-stack.txt) with 'apt-get source --download-only' into
		$DQ_CACHE/linux_VERSION/ once (about 140 MB; reused by every clone),
		and print the path of its .dsc. The deb-src entries live in a private
		apt configuration under $DQ_CACHE/apt (the mirrors and suites the host's
		sources take $S61_SRC_PKG from); the host's sources are not changed.
		H
		exit 0 ;;
		-*) die "source: unknown option $1 (see --help)" ;;
		*) [ -z "$ver" ] || die "source: one VERSION only (got '$ver' and '$1')"
		   ver=$1 ;;
		esac
		shift
	done
	[ -n "$ver" ] || ver=$(stack_base_version)
	[ -n "$ver" ] || die "branch-stack.txt has no 'base <package> <version>' line; give the VERSION"
	[[ $ver =~ ^[0-9][0-9A-Za-z.+~:-]*-[0-9A-Za-z.+~]+$ ]] ||
		die "source: '$ver' is not a Debian version with a revision (e.g. 6.1.192-3; 'apt-cache madison $S61_SRC_PKG' lists them)"
	local d=$DQ_CACHE/linux_$ver dsc conf dl
	dsc=$d/linux_${ver#*:}.dsc
	if [ -s "$dsc" ] && [ ! -e "$d/.partial" ]; then
		echo "$dsc"
		return 0
	fi
	conf=$(apt_conf) || exit 1
	export APT_CONFIG=$conf
	if ! has_source "$ver"; then
		info "updating the source lists of $DQ_CACHE/apt"
		apt-get update -q >"$DQ_CACHE/apt/update.log" 2>&1 ||
			die "apt-get update of the deb-src lists failed: see $DQ_CACHE/apt/update.log"
	fi
	has_source "$ver" ||
		die "the archive has no source package linux $ver ('APT_CONFIG=$conf apt-cache madison linux' lists those it has)"
	mkdir -p "$d" || die "cannot make $d"
	touch "$d/.partial" || die "cannot write into $d"
	dl=$DQ_CACHE/download.log
	info "fetching linux $ver: apt-get source --download-only linux=$ver (about 140 MB, into $d)"
	if ! (cd "$d" && apt-get source -q --download-only "linux=$ver") >"$dl" 2>&1; then
		grep -E '^E:' "$dl" | head -2 >&2
		die "could not download the source package linux $ver (above; all of it in $dl): the mirror may not serve it; 'tools/debian/quilt.sh source VERSION' takes another upload"
	fi
	[ -s "$dsc" ] || die "apt-get source left no $dsc (see $dl)"
	rm -f "$d/.partial"
	echo "$dsc"
}

cmd_versions() {
	local out conf
	case ${1:-} in
	-h|--help) usage; exit 0 ;;
	'') ;;
	*) die "versions: no arguments (got '$1')" ;;
	esac
	if [ -n "${S61_MADISON_SRC:-}" ]; then
		out=$(cat "$S61_MADISON_SRC") || die "cannot read S61_MADISON_SRC=$S61_MADISON_SRC"
	else
		conf=$(apt_conf) || exit 1
		export APT_CONFIG=$conf
		if [ -z "$(find "$DQ_CACHE/apt/lists" -maxdepth 1 -name '*Sources*' -mtime -7 2>/dev/null | head -1)" ]; then
			info "updating the source lists of $DQ_CACHE/apt"
			apt-get update -q >"$DQ_CACHE/apt/update.log" 2>&1 ||
				die "apt-get update of the deb-src lists failed: see $DQ_CACHE/apt/update.log"
		fi
		out=$(apt-cache madison linux 2>/dev/null)
	fi
	awk -F'|' '$3 ~ / Sources[ \t]*$/ { v = $2; gsub(/[ \t]/, "", v); if (v != "" && !seen[v]++) print v }' <<<"$out"
}

cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
export|source|versions) "cmd_$cmd" "$@" ;;
-h|--help|help) usage ;;
"") usage >&2; exit 2 ;;
*) die "unknown command '$cmd' (export, source, versions; see --help)" ;;
esac
