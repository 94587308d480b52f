#!/usr/bin/env bash
# Tests of tools/s61, the front end (issue #39): help lists every concern
# (a directory of tools/) and every command in it with a usage line, and
# no command is without one; CONCERN lists one concern; CONCERN VERB runs
# tools/CONCERN/VERB.sh or .py with the arguments, and a verb that names
# no file of a concern that has CONCERN.sh goes to it (tools/s61 stack
# apply); an unknown concern or verb exits 2 naming the choices. The
# commands run are stubs in a copy of the tools; nothing is built.
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
s61=$P/tools/s61

# ---- help: every concern and command, each with its usage line ------------
check "help: exit 0" "$s61" help
cp "$t/out" "$t/help"
for d in "$here"/tools/*/; do
	c=${d%/}
	c=${c##*/}
	cmds=$(find "$d" -maxdepth 1 -type f -perm -u+x \( -name '*.sh' -o -name '*.py' \) -printf '%f\n' | sort)
	[ -n "$cmds" ] || continue
	expect "help lists the concern $c" grep -qx "$c:" "$t/help"
	for f in $cmds; do
		v=${f%.*}
		# The help's line of this command: its name, then its usage line.
		line=$(awk -v c="$c:" -v v="$v" '$0 == c { in_c = 1; next } /^[^ ]/ { in_c = 0 } in_c && $1 == v { print; exit }' "$t/help")
		usage=$(sed -E 's/^ +[^ ]+ +//' <<<"$line")
		if [ -n "$line" ] && [ -n "$usage" ] && [ "$usage" != "$line" ]; then
			ok "$c $v has a usage line: $usage"
		else
			ko "$c $v has a usage line" "tools/$c/$f: no 'Usage:' line in its header and none in its --help (help says: '$line')"
		fi
	done
done
expect "help lists the stack's subcommands" grep -q "tools/stack/stack.sh VERB ... (VERB: init apply export rebase move check-upstream status path)" "$t/help"
expect "help lists the shared S61_* variables of tools/lib/lib.sh" \
	bash -c "sed -n '/^Shared environment/,\$p' '$t/help' | grep -q S61_CACHE &&
		sed -n '/^Shared environment/,\$p' '$t/help' | grep -q S61_WORK &&
		sed -n '/^Shared environment/,\$p' '$t/help' | grep -q S61_LINUX"
expect "--help is help" cmp -s "$t/help" <("$s61" --help)
expect "no argument is help" cmp -s "$t/help" <("$s61")

# The check above catches a command without usage text: a copy with one.
printf '#!/usr/bin/env bash\n# Does something.\necho hi\n' >"$P/tools/lint/nousage.sh"
chmod +x "$P/tools/lint/nousage.sh"
"$s61" help >"$t/out" 2>&1
expect "a command without usage text shows an empty usage line" grep -qxE ' +nousage *' "$t/out"
rm "$P/tools/lint/nousage.sh"

# ---- CONCERN: its commands ---------------------------------------------
check "lint: exit 0" "$s61" lint
expect "... lists awk, docs and records with their usage" \
	test "$(awk '/^ / { print $1, $2 }' "$t/out")" = "$(printf 'awk tools/lint/awk.py\ndocs tools/lint/docs.py\nrecords tools/lint/records.py')"

# ---- CONCERN VERB ARGS: the command, with the arguments ----------------
calls=$t/calls
# stub FILE: logs "NAME ARGS" (one line, arguments joined by |) to $calls.
stub() {
	# shellcheck disable=SC2016  # $0 and $* are the stub's
	printf '#!/bin/sh\nn=${0##*/}; (IFS="|"; echo "$n $*") >>"%s"\nexit %s\n' "$calls" "${2:-0}" >"$1"
	chmod +x "$1"
}
stub "$P/tools/stack/stack.sh"
stub "$P/tools/stack/bisect.sh" 7
stub "$P/tools/lab/kcidb.py"
: >"$calls"
check "stack apply: exit 0" "$s61" stack apply --x 'a b'
expect "... runs stack.sh apply with the arguments" grep -qx 'stack.sh apply|--x|a b' "$calls"
: >"$calls"
expect "stack bisect: bisect.sh's own exit (7)" rc_is 7 "$s61" stack bisect GOOD BAD
expect "... runs bisect.sh, not stack.sh bisect" grep -qx 'bisect.sh GOOD|BAD' "$calls"
: >"$calls"
check "lab kcidb: runs the .py" "$s61" lab kcidb run X
expect "... with the arguments" grep -qx 'kcidb.py run|X' "$calls"
check "lib query: the real one" "$s61" lib query --help
expect "... prints its usage" out_has '^Usage: tools/lib/query.sh'

# ---- unknown concern or verb: exit 2, the choices named ---------------
: >"$calls"
expect "unknown concern: exit 2" rc_is 2 "$s61" nosuch
expect "... names the concerns" out_has "no concern 'nosuch'; the concerns: bench boot build debian lab lib lint stack"
expect "unknown verb: exit 2" rc_is 2 "$s61" lint nosuch
expect "... names the concern's commands" out_has "no command 'nosuch' in lint; its commands: awk docs"
expect "a path as concern: exit 2" rc_is 2 "$s61" ../tools
expect "a path as verb: exit 2" rc_is 2 "$s61" lint ../lint/awk
expect "lib.sh (sourced, not run) is no command: exit 2" rc_is 2 "$s61" lib lib
expect "... and nothing ran" test ! -s "$calls"
expect "a stack verb stack.sh does not know goes to it (its error)" rc_is 0 "$s61" stack nosuch
expect "... stack.sh nosuch" grep -qx 'stack.sh nosuch' "$calls"

echo "s61-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
