# Lockless slab shrink for Linux 6.1 LTS: build, boot and test the branch stack.
#
#   make           install what is missing, materialize the stack, build its top,
#                  boot it in QEMU and run the guest suites
#   make check     the tests (what .ci/run runs)
#   make check-full  check + the soak race run + the other long checks
#   make coverage  runtime coverage of every converted shrinker, base vs the
#                  top of the stack (docs/coverage.md); part of check-full
# Other targets: deps, stack, build, boot, lint, check-records, tools-tests (CONCERN=stack,
# or tests-stack: one concern's tests), checkpatch, boot-test, check-top,
# soak, clean-work, boot-commits (every core commit).
#   make bench     benchmarks of the series vs base (docs/results/benchmarks.md, docs/bench/);
#                  QUICK=1 for a reduced run (<= 20 min); never part of check
#   make bench-sweep / bench-0004  the memcg sweep (P4 at scale, P6) vs base /
#                  the stack without memcg-empty-units against it
#   make bench-page  docs/results/benchmarks.md anew from docs/bench/*.json (no runs)
#   make deb       the top and base as Debian packages with Debian's own
#                  config, reduced (tools/debian/deb.sh; .work/debs/); DEB_ARGS
#                  e.g. --flavour debug; never part of check
#   make debian-compare  one Debian image booted on Debian's stock kernel, base
#                  and the series built with Debian's config (tools/debian/compare.sh;
#                  docs/debian-bench/); DEBIAN_COMPARE_ARGS; never part of check
# The commands behind the targets, by concern: tools/s61 help.
# Variables: CONFIG (boot), SUITES (smoke,lockless), BRANCH (top of the stack;
# check and check-top refuse any other), RACE_SECS (60; .ci/run pins it),
# SOAK_SECS (600), SOAK_ONLY (soak only these race tests, e.g. memcg-races;
# default both).

SHELL := /bin/bash
CONFIG ?= boot
SUITES ?= smoke,lockless
BRANCH ?= $(shell tools/lib/query.sh top 2>/dev/null)
RACE_SECS ?= 60
SOAK_SECS ?= 600
SOAK_ONLY ?=
# The host's shell scripts, as tools/lint/awk.py tells them: by extension
# (.sh), an extensionless one (qemu/run, .ci/run, tools/s61) by its #! line.
SHELL_SCRIPTS = $(shell tools/lint/awk.py --list-shell tools qemu tests .ci)

.PHONY: all check check-full deps deps-lint stack build boot lint tools-tests \
	broken-variants check-claims check-top-branch checkpatch b4-tests boot-test \
	check-top faults soak coverage clean-work bench bench-sweep bench-0004 \
	bench-page boot-commits debian-matrix deb debian-image debian-boot \
	debian-compare deb-broken deb-debug-run debian-quilt-check check-records results

all: deps stack
	tools/boot/guest-test.sh --config $(CONFIG) --suites $(SUITES) $(BRANCH)

check: check-top-branch deps deps-lint lint check-records check-claims stack tools-tests checkpatch b4-tests debian-quilt-check boot-test check-top
	@echo "make check: all passed"

check-full: check faults soak coverage
	@echo "make check-full: all passed"

deps:
	@tools/build/deps.sh base

deps-lint:
	@tools/build/deps.sh lint

stack: deps
	tools/stack/stack.sh init
	tools/stack/stack.sh apply

build: stack
	tools/build/kbuild.sh --config $(CONFIG) $(BRANCH)

boot: stack
	tools/boot/guest-test.sh --config $(CONFIG) --suites $(SUITES) $(BRANCH)

lint: deps-lint check-records
	shellcheck -x -e SC1091 $(SHELL_SCRIPTS)
	shellcheck -x -e SC1091 -s bash rootfs-overlay/s61/init rootfs-overlay/s61/lib.sh rootfs-overlay/s61/ktap.sh rootfs-overlay/s61/stress-ramfs.sh \
		rootfs-overlay/s61/bench-sample.sh \
		rootfs-overlay/s61/tests/*/*.sh
	shellcheck -x -e SC1091 -s bash debian-system/overlay/s61/debian-run debian-system/overlay/s61/subsys.sh debian-system/overlay/s61/dbench.sh debian-system/overlay/s61/tests/*/*.sh
	tools/lint/awk.py
	tools/lint/awk.py debian-system/overlay/s61/debian-run debian-system/overlay/s61/subsys.sh debian-system/overlay/s61/dbench.sh debian-system/overlay/s61/tests/*/*.sh
	tools/lint/docs.py
	@# tools/lib/lib.sh sets pipefail: 'cmd | grep -q' fails by SIGPIPE, at random,
	@# when grep exits at its first match; grep a file or a here-string.
	@! grep -d skip -nE '^[^#]*\| *grep -[a-zA-Z]*q' tools/* tools/*/* qemu/* .ci/run || \
		{ echo "lint: '| grep -q' under pipefail (above): grep a file or <<<\"\$$(cmd)\" instead"; exit 1; }
	@echo "lint: shellcheck clean, awk runs under Debian 12's mawk, no '| grep -q' under pipefail, no work-diary wording or stray dates in the docs"

# The tools' tests: every suite tests/CONCERN/test-*.sh, concern by concern
# (tests/run.sh; a suite's header says what it needs: packages, arguments,
# or that it is run elsewhere, as b4-tests). CONCERN=stack runs one
# concern's (as does make tests-stack).
tools-tests:
	tests/run.sh $(CONCERN)

tests-%:
	tests/run.sh $*

# Every variant docs/testing.md claims a test failed on has its diff in
# tests/broken/ and a current, caught row in docs/broken-variants.tsv
# (seconds; no build, no boot); it names the runs that are due.
check-claims:
	tools/boot/check-claims.sh

checkpatch: stack
	tools/stack/checkpatch.sh

# b4 prep/send of the whole series and the mail round trip (needs the stack).
b4-tests: stack
	@tools/build/deps.sh b4
	tests/stack/test-b4-roundtrip.sh

# Every tip of the stack: build, boot, smoke. Under .ci/run (S61_DEADLINE)
# uncached tips that no longer fit into CI's time are skipped; here, run
# by hand, none is.
boot-test: stack
	tools/boot/boot-test-branches.sh

# Every commit of prep, the core branches and tests with the debug kernel:
# smoke, lockless, races (docs/results/boot-commits.md; hours; never part of check).
# BOOT_COMMITS_ARGS: more options, e.g. --from COMMIT to resume.
boot-commits: stack
	tools/boot/boot-commits.sh $(BOOT_COMMITS_ARGS)

# The deliberately broken kernels of tests/broken/ that carry a "fails:"
# header (docs/results/broken-variants.md): each applied to the top, built, booted;
# the run must fail with the named test among the failures. ~2 min each
# (kunit config); never part of check. BROKEN=NAME... runs only those.
broken-variants: stack
	tools/boot/broken-variants.sh $(BROKEN)

# check-top tests the top of the stack. BRANCH comes from the environment
# too (?=): BRANCH=base make check would send it to base, where the
# manifest expects the old stall and every run "passes". So check and
# check-top refuse any other BRANCH before they start (make boot, faults,
# soak and coverage take any); .ci/run pins BRANCH and RACE_SECS.
check-top-branch:
	@top=$$(tools/lib/query.sh top) && [ -n "$$top" ] && [ "$(BRANCH)" = "$$top" ] || { \
		echo "make: check-top tests the top of the stack ($${top:-none in branch-stack.txt}), not BRANCH=$(BRANCH): unset BRANCH (make boot BRANCH=... tests another branch)" >&2; \
		exit 1; }

# The top of the stack under the debug kernel (KUnit, smoke, the lockless
# properties, a short race run and 180 s of the memcg race), the negative
# controls (kmemleak, KASAN, lockdep), each in a boot of its own and, for
# KASAN and lockdep, again on the boot kernel with the option off
# (tools/boot/control-off.sh); then the nokmem case and the lockless suite
# on base, where the old stall must show (XFAIL). The runs and their
# arguments are data: qemu/check-top.runs, run in order by
# tools/boot/check-top.sh; the first that fails stops it.
check-top: check-top-branch stack
	tools/boot/check-top.sh $(BRANCH) $(RACE_SECS)

# Fault injection on the top of the stack under the debug config: the exact
# fail-nth sweep over a tmpfs mount and a memcg mkdir (about 4 min).
faults: stack
	tools/boot/guest-test.sh --config debug --suites faults --timeout 1200 $(BRANCH)

soak: stack
	tools/boot/guest-test.sh --config debug --suites races $(if $(SOAK_ONLY),--only $(SOAK_ONLY)) --timeout $$(($(SOAK_SECS) + 900)) \
		--append "s61.race_secs=$(SOAK_SECS) s61.test_timeout=$$(($(SOAK_SECS) + 600))" $(BRANCH)

# Benchmarks (issue #6): base vs the top of the stack, bench config, rounds
# alternating A B; writes docs/results/benchmarks.md and, every run kept,
# docs/bench/<date>-<quick|full>.{json,png} (with -a other than base in
# BENCH_ARGS: docs/bench/<date>-<quick|full>-<A>-vs-<B>.{md,json,png}).
# QUICK=1: 2 rounds and shorter workloads. BENCH_ARGS: more tools/bench/bench.sh options.
bench: stack
	tools/bench/bench.sh $(if $(filter 1,$(QUICK)),--quick) $(BENCH_ARGS)

# P4 at scale and P6 (issue #16): the memcg sweep (N = 250 .. 4000) in boots
# of its own, base vs the top; docs/bench/<date>-full-only-70-p4-sweep.*.
# bench-0004: the same sweep, the branch below memcg-empty-units (A: the
# stack without the unit map) against memcg-empty-units (B). Durations in
# docs/timings.md. BENCH_ARGS: e.g. --rounds 3.
SWEEP_ARGS = --only 70-p4-sweep --p2-pairs 0 --timeout 2400 \
	--append "s61.bench_p4s=1 s61.test_timeout=2100"
bench-sweep: stack
	tools/bench/bench.sh $(SWEEP_ARGS) $(BENCH_ARGS)

bench-0004: stack
	a=$$(tools/lib/query.sh parent memcg-empty-units) && \
	tools/bench/bench.sh -a "$$a" -b memcg-empty-units $(SWEEP_ARGS) $(BENCH_ARGS)

# docs/results/benchmarks.md anew from the recorded runs in docs/bench/ (tools/bench/bench.sh
# does this after every run): the newest full whole run, memcg sweep and
# 0004 on/off run, each judged by today's rules, and every run in a table.
bench-page:
	python3 tools/bench/bench-report.py --page docs/results/benchmarks.md --dir docs/bench

# Runtime coverage (docs/coverage.md): the coverage config and suite on the
# top of the stack and on base; both must pass and show the same debugfs
# shrinker names.
coverage: stack
	@tools/build/deps.sh coverage
	tools/boot/coverage.sh $(BRANCH) base

# The stack on every linux-source-6.1 upload (issue #26), in scratch copies:
# per-patch dry runs, then the top built and booted (boot config, smoke and
# lockless) where it applies; docs/debian-versions.md and .tsv. Never part
# of check. MATRIX_ARGS: --no-boot, --versions V1,V2, --dry-run, --force.
debian-matrix: stack
	tools/debian/matrix.sh $(MATRIX_ARGS)

# The top (BRANCH) and base as Debian packages: Debian's amd64 config of the
# stack's upload reduced to qemu/debian/modules.list (tools/debian/deb.sh).
# Times in docs/timings.md; docs/debian-system.md for what runs them.
deb: stack
	tools/debian/deb.sh $(DEB_ARGS) $(BRANCH)
	tools/debian/deb.sh $(DEB_ARGS) base

# The deliberately broken kernels of debian-system/broken-variants, each
# built into the top with Debian's reduced config (tools/debian/deb.sh
# --broken), installed in the Debian image and booted: the run must fail
# with the tests the list names (tools/debian/broken.sh; record
# docs/debian-broken.tsv). A build of the top's tree each (~20 min with a
# warm ccache) and a boot; never part of check. DEBIAN_BROKEN="NAME..."
# for some of them.
deb-broken: stack
	set -e; for v in $(or $(DEBIAN_BROKEN),$(shell awk '!/^#/ && NF { print $$1 }' debian-system/broken-variants)); do \
		tools/debian/broken.sh $$v; done

# The debug flavour's run (issue #27): the newest debug .deb of .work/debs
# (make deb DEB_ARGS=--flavour debug) in the Debian image, every test of
# debian-smoke, debian-subsys and debian-bench but those of
# debian-system/debug-left-out (tools/debian/debug-run.sh; record
# docs/debian-debug.tsv). About 45 min of TCG; never part of check.
# DEBIAN_DEBUG_ARGS e.g. "--base" or "--left-out".
deb-debug-run:
	tools/debian/debug-run.sh $(DEBIAN_DEBUG_ARGS)

# The Debian 12 system image (docs/debian-system.md): Debian's stock kernel, or
# DEBS="linux-image-....deb ..." installed with dpkg -i. Needs the network;
# never part of check. DEBIAN_BOOT_ARGS="--suites debian-subsys" runs each
# converted shrinker's subsystem with its Debian tool (about 3-4 min of TCG).
debian-image:
	tools/debian/image.sh $(if $(DEBS),--deb $(DEBS),--kernel stock)

debian-boot:
	tools/debian/boot.sh $(if $(DEBS),--deb $(DEBS),--kernel stock) $(DEBIAN_BOOT_ARGS)

# The same Debian image booted alternately on Debian's stock kernel, base
# and the series built with Debian's reduced config (the .debs of make deb
# in .work/debs; a kernel without its .deb is left out and named), rounds
# with the order rotated; the report in docs/debian-bench/ and
# docs/debian-system.md. Needs the network; never part of check.
# DEBIAN_COMPARE_ARGS e.g. "--rounds 5 --n 50" or "--kernels stock,top".
debian-compare:
	tools/debian/compare.sh $(DEBIAN_COMPARE_ARGS)

# The quilt export applied to Debian's linux source package of the base
# (about 140 MB, cached under the shared cache; the tree compared with
# linux-source-6.1 + patches/ and the top branch; under a minute once
# cached). Part of check; where the mirror does not serve the base's source
# package it pushes the series onto the linux-source-6.1 tree of the base
# and says so (docs/debian-packaging.md).
debian-quilt-check: stack
	@tools/build/deps.sh debian-quilt
	tests/debian/test-quilt.sh

# Every page of docs/results/ (docs/results/pages.tsv) and README's timings
# block is what its command writes from the committed records and today's
# stack id: each regenerated on a copy of the tree (no kernel checkout, a
# few seconds); a hand-edited figure or a row of another stack shown
# unmarked fails, naming the page and the command that writes it.
check-records:
	tools/lint/records.py

# Every page of docs/results/ and README's timings block anew from the
# committed records (after a run that wrote a record; then commit them).
results:
	tools/lint/records.py --write

clean-work:
	rm -rf .work
