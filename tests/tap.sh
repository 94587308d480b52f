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
# project_copy DIR: the tools, testmod/ and qemu/configs/ of this repository
# in DIR, for a test that replaces some of them by stubs ($here is the
# repository, set by the sourcing test).
project_copy() {
	mkdir -p "$1/qemu"
	cp -r "$here/tools" "$here/testmod" "$1/"
	cp -r "$here/qemu/configs" "$1/qemu/"
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
# says NAME TEXT...: one check that the last output ($t/out) has every TEXT.
says() {
	local name=$1 p
	shift
	for p in "$@"; do
		out_has "$p" || { ko "$name" "no '$p' in: $(tr '\n' ' ' <"$t/out")"; return; }
	done
	ok "$name"
}
# snapshot: what a refusal of tools/stack must leave as it was, in the
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
