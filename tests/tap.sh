# shellcheck shell=bash disable=SC2154  # $t (and g, for snapshot) come from the sourcing test
# TAP-style helpers shared by the tools' tests. The sourcing script sets $t
# (a temporary directory); each check's output goes to $t/out.
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) $1"; }
ko() { fail=$((fail + 1)); echo "not ok $((pass + fail)) $1"; [ -z "${2:-}" ] || echo "# $2"; }
check() { local name=$1; shift; if "$@" >"$t/out" 2>&1; then ok "$name"; else ko "$name" "$(tail -3 "$t/out" | tr '\n' ' ')"; fi; }
check_fails() { local name=$1; shift; if "$@" >"$t/out" 2>&1; then ko "$name" "succeeded but should fail"; else ok "$name"; fi; }
out_has() { grep -q -- "$1" "$t/out"; }
out_lacks() { ! grep -q -- "$1" "$t/out"; }
expect() { if "${@:2}"; then ok "$1"; else ko "$1" "$(tail -5 "$t/out" | tr '\n' ' ')"; fi; }
# project_copy DIR: the tools, testmod/, qemu/configs/ and qemu/debian/ of this repository
# in DIR, for a test that replaces some of them by stubs ($here is the
# repository, set by the sourcing test).
project_copy() {
	mkdir -p "$1/qemu"
	cp -r "$here/tools" "$here/testmod" "$1/"
	cp -r "$here/qemu/configs" "$here/qemu/debian" "$1/qemu/"
}
# new_project: a temporary directory $t (removed at exit unless KEEP is set)
# holding a copy of the project's tools in $P (project_copy), for the tests
# that run the tools with stubs on a synthetic checkout.
new_project() {
	t=$(mktemp -d)
	trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
	P=$t/proj
	project_copy "$P"
}
# fake_stack BRANCH:SUBJECT[:SUBJECT...]...: in the git repository of g()
# (set by the sourcing test), a "base" commit of a.c and then, for each
# argument, a branch of that name on the one before with one commit per
# subject (each appends its subject to a.c).
fake_stack() {
	local b s subs top
	top=$(g rev-parse --show-toplevel) || return 1
	echo base >"$top/a.c"
	g add a.c && g commit -qm base && g branch -q base
	for b in "$@"; do
		g checkout -q -b "${b%%:*}"
		IFS=: read -r -a subs <<<"${b#*:}"
		for s in "${subs[@]}"; do
			echo "$s" >>"$top/a.c" && g commit -qam "$s"
		done
	done
}
# mutate yaml|json IN OUT PYTHON: OUT is IN (loaded as d) changed by PYTHON.
mutate() {
	/usr/bin/python3 -c 'import json, sys, yaml
fmt, src, dst, code = sys.argv[1:5]
d = yaml.safe_load(open(src)) if fmt == "yaml" else json.load(open(src))
exec(code)
with open(dst, "w") as f:
    yaml.safe_dump(d, f) if fmt == "yaml" else json.dump(d, f)' "$@"
}
# rc_is N CMD...: CMD (output in $t/out) exits with N.
rc_is() {
	local want=$1 rc=0
	shift
	"$@" >"$t/out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want" >>"$t/out"; return 1; }
}
# says NAME TEXT...: one check that the last output ($t/out) has every TEXT.
says() {
	local name=$1 p
	shift
	for p in "$@"; do
		out_has "$p" || { ko "$name" "no '$p' in: $(tr '\n' ' ' <"$t/out")"; return; }
	done
	ok "$name"
}
# snapshot: what a refusal of tools/stack/stack.sh must leave as it was, in the
# checkout of g() and the project $t/proj: the stack's refs (not the tags
# init fetches from the shared import), HEAD, any am/rebase/cherry-pick/
# merge/apply/move state, the working tree, patches/ and branch-stack.txt.
snapshot() {
	local gd f
	gd=$(g rev-parse --absolute-git-dir)
	g for-each-ref --format='%(refname) %(objectname)' | grep -v '^refs/tags/'
	echo "HEAD $(g symbolic-ref -q HEAD || g rev-parse HEAD)"
	for f in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD s61-stack-apply s61-stack-move; do
		[ ! -e "$gd/$f" ] || echo "state $f"
	done
	g status --porcelain --untracked-files=all
	(cd "$t/proj" && find patches branch-stack.txt -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
# Synthetic Debian uploads for the tests of tools/stack/stack.sh move and
# tools/debian/matrix.sh. make_source VERSION SCRIPT: a linux-source tree of
# that version (Debian's top-level "/*" ignore rule included), changed by
# SCRIPT run in the tree, as the tarball $t/src-VERSION.tar.xz.
make_source() {
	local d=$t/src-$1/linux-source-6.1
	mkdir -p "$d/lib"
	printf 'all:\n' >"$d/Makefile"
	seq 1 20 >"$d/lib/a.c"
	seq 1 20 >"$d/lib/b.c"
	printf '*.o\n/*\n!/debian/\n' >"$d/.gitignore"
	(cd "$d" && eval "$2")
	tar -C "$t/src-$1" -cJf "$t/src-$1.tar.xz" linux-source-6.1
}
# make_deb VERSION: the .deb of linux-source-6.1 VERSION in the fake
# archive $t/archive, its tarball where Debian's has it.
make_deb() {
	local d=$t/deb-$1
	mkdir -p "$d/DEBIAN" "$d/usr/src" "$t/archive"
	cp "$t/src-$1.tar.xz" "$d/usr/src/linux-source-6.1.tar.xz"
	printf 'Package: linux-source-6.1\nVersion: %s\nArchitecture: all\nMaintainer: t <t@t>\nDescription: fake\n' "$1" >"$d/DEBIAN/control"
	dpkg-deb -Znone --build "$d" "$t/archive/linux-source-6.1_$1_all.deb" >/dev/null
}
# fake_apt_get: $t/bin/apt-get (put $t/bin first on PATH) answers
# 'apt-get download linux-source-6.1=VERSION' from $t/archive, every call
# logged in $t/apt.log; anything else fails.
fake_apt_get() {
	mkdir -p "$t/bin"
	cat >"$t/bin/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$t/apt.log"
[ "\$1" = download ] || exit 100
for a; do case \$a in *=*) v=\${a#*=} ;; esac; done
f=$t/archive/linux-source-6.1_\${v}_all.deb
[ -f "\$f" ] || { echo "E: Version '\$v' for 'linux-source-6.1' was not found" >&2; exit 100; }
cp "\$f" .
EOF
	chmod +x "$t/bin/apt-get"
}
# git_signaller WORDS WHO: $t/bin/git runs the real git, and right after
# the Nth call whose arguments hold WORDS (e.g. " am -q ") it sends a
# signal: S61_TEST_SIGNAL_AT="N SIGNAL" in its environment; WHO "parent"
# signals the calling tool and this git (a kill of the tool), "group" the
# whole process group (Ctrl-C). Its count is in $t/git-count.
git_signaller() {
	local target
	# (target is code for the generated script: expanded there, not here)
	# shellcheck disable=SC2016
	case $2 in
	parent) target='$PPID $$' ;;
	group) target='-- -$(ps -o pgid= -p $$ | tr -d " ")' ;;
	*) echo "git_signaller: WHO is parent or group, not $2" >&2; return 2 ;;
	esac
	mkdir -p "$t/bin"
	cat >"$t/bin/git" <<EOF
#!/bin/bash
$(command -v git) "\$@"
rc=\$?
case " \$* " in
*"$1"*)
	n=\$((\$(cat "$t/git-count" 2>/dev/null || echo 0) + 1))
	echo \$n >"$t/git-count"
	[ "\$n" != "\${S61_TEST_SIGNAL_AT% *}" ] || kill -s "\${S61_TEST_SIGNAL_AT#* }" $target ;;
esac
exit \$rc
EOF
	chmod +x "$t/bin/git"
}
# with_state IN OUT [TAINTED [DEBUG_LOCKS]]: the result file IN as today's
# guest init and the Debian image's runner write it: their closing report
# of the kernel's state ("# s61-tainted: N", "# s61-debug-locks: X";
# default 4096, O only, and 1) right before "s61-exit:". A file without "s61-exit:" (a guest that
# stopped) stays as it is: the init writes neither then.
with_state() {
	awk -v ta="${3:-4096}" -v dl="${4:-1}" '
		/^s61-exit: / && !done { print "# s61-tainted: " ta; print "# s61-debug-locks: " dl; done = 1 }
		{ print }' "$1" >"$2"
}
# stub_debian_image: a stand-in $P/tools/debian/image.sh that logs its
# arguments ("debian-image ARGS") to $calls and prints an empty $t/disk.img
# as the image (for the tests of the tools that boot the Debian image).
stub_debian_image() {
	cat >"$P/tools/debian/image.sh" <<EOF
#!/usr/bin/env bash
echo "debian-image \$*" >>"$calls"
: >"$t/disk.img"
echo "$t/disk.img"
EOF
	chmod +x "$P/tools/debian/image.sh"
}
