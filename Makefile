# Lockless slab shrink for Linux 6.1 LTS: build, boot and test the branch stack.
#
#   make           install what is missing, materialize the stack, build its top,
#                  boot it in QEMU and run the guest suite
#   make check     the tests (what .ci/run runs)
# Other targets: deps, stack, build, boot, lint, stack-tests, checkpatch,
# boot-test, clean-work. Variables: CONFIG (boot), SUITES (smoke), BRANCH (top).

SHELL := /bin/bash
CONFIG ?= boot
SUITES ?= smoke
BRANCH ?= $(shell tools/lib-query top 2>/dev/null)

.PHONY: all check deps deps-lint stack build boot lint stack-tests checkpatch boot-test clean-work

all: deps stack
	tools/guest-test --config $(CONFIG) --suites $(SUITES) $(BRANCH)

check: deps deps-lint lint stack-tests stack checkpatch boot-test
	@echo "make check: all passed"

deps:
	@tools/deps base

deps-lint:
	@tools/deps lint

stack: deps
	tools/stack init
	tools/stack apply

build: stack
	tools/kbuild --config $(CONFIG) $(BRANCH)

boot: stack
	tools/guest-test --config $(CONFIG) --suites $(SUITES) $(BRANCH)

lint: deps-lint
	shellcheck -x -e SC1091 tools/lib.sh tools/stack tools/deps tools/kbuild tools/guest-test \
		tools/boot-test-branches tools/checkpatch tools/lib-query tools/testmod \
		qemu/run qemu/mkinitramfs tests/*.sh .ci/run
	shellcheck -x -e SC1091 -s bash rootfs-overlay/s61/init rootfs-overlay/s61/lib.sh \
		rootfs-overlay/s61/tests/*/*.sh
	@echo "lint: shellcheck clean"

stack-tests:
	tests/test-stack.sh

checkpatch: stack
	tools/checkpatch

boot-test: stack
	tools/boot-test-branches

clean-work:
	rm -rf .work
