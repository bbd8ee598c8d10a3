# SPDX-License-Identifier: Apache-2.0
# Front door: `make` builds, `make test` runs every test and prints a short
# summary (the build's and ctest's lines go to $(BUILD)/build.log and
# $(BUILD)/ctest.log), `make demo` runs the main job (what it did shown,
# its ledger lines in $(BUILD)/demo.log), `make bench`
# measures.  The real build is CMake in $(BUILD).
#   BLST_DIR=/path/to/blst   build against a local blst checkout
#   SANITIZE=address,undefined   build (in build-san-address-undefined) and
#                            test under sanitizers; SANITIZE=thread likewise
#                            in build-san-thread
#   make test-san-fast       the tests not labelled slow, under ASan + UBSan
#   make test-tsan-fast      the threaded tests, under ThreadSanitizer (blst
#                            instrumented too; TSAN_BLST=asm: its assembly)
#   make fuzz FUZZ_SECONDS=N  every fuzz target for N s (build-fuzz, clang)
#   make install [PREFIX=/usr/local] [DESTDIR=]   the binary, the libraries,
#                            the headers, the pkg-config file, the man page
#                            and the docs; make uninstall removes them
#   make package             a Debian package (CPack) in $(BUILD)
#   make screenshot          docs/live-page.png, the service's page in Chromium
#   make bench-serve         proofline serve under load (bench/serve_load.sh)
#   make bench-classes       critical jobs among normal ones (bench/serve_classes.sh)
#   make bench-cluster       1-3 workers on one PostgreSQL queue (bench/cluster_load.sh)
#   make bench-ceremony      the trusted setup's steps vs snarkjs (bench/ceremony_bench.sh;
#                            POWERS="12 14 16" BIG=20: hours on 2 cores;
#                            SNARKJS_STEPS="zkeynew" times snarkjs on that step alone)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SANITIZE ?=
# Undefined behaviour fails the test (UBSan only prints by default); leaks
# fail it too (LeakSanitizer runs at exit).
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1 \
           UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# ThreadSanitizer: fail on the first report, with both stacks of a
# deadlock; the CUDA backend is left out (its runtime is not instrumented).
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
comma := ,
# Each sanitizer set builds in its own folder, keyed by its value, so an
# ASan build and a TSan build never share a CMake cache.
ifneq ($(SANITIZE),)
BUILD := build-san-$(subst $(comma),-,$(SANITIZE))
CMAKE_EXTRA := -DPL_SANITIZE=$(SANITIZE) -DCMAKE_BUILD_TYPE=RelWithDebInfo
TEST_ENV := $(SAN_ENV)
ifneq ($(findstring thread,$(SANITIZE)),)
CMAKE_EXTRA += -DPL_CUDA=OFF
TEST_ENV := $(TSAN_ENV)
endif
# Under TSan blst is instrumented too, built as portable C (see
# PL_BLST_PORTABLE), so the race detector sees the curve code's writes;
# TSAN_BLST=asm keeps blst's assembly (faster, blind to those writes).
ifneq ($(findstring thread,$(SANITIZE)),)
ifeq ($(TSAN_BLST),asm)
BUILD := $(BUILD)-asm-blst
else
CMAKE_EXTRA += -DPL_BLST_PORTABLE=ON
endif
endif
endif
FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local
DESTDIR ?=
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
BLST_TGZ := _deps/chainsafe-blst-0.2.11.tgz
export BLST_DIR

.PHONY: screenshot all build quiet-build deps npm-deps test test-san-fast test-tsan-fast fuzz fuzz-deps demo bench bench-serve bench-classes bench-cluster bench-ceremony cuda-smoke clean install uninstall package

all: build

deps:
	@sh scripts/deps.sh

# The configure first installs the Debian packages that are missing (as
# root; otherwise it names them), so a plain `make` works on a fresh
# machine.  A new build folder reuses the blst tarball another one fetched
# (its integrity is checked again), so it configures offline.  A configure
# that fails leaves no CMakeCache.txt behind: this rule would otherwise
# take the folder as configured, and the next `make` would fail on a
# missing Makefile instead of configuring again.
$(BUILD)/CMakeCache.txt:
	@sh scripts/deps.sh
	@for d in build build-san-* $(FUZZ_BUILD); do \
	  if [ -f $$d/$(BLST_TGZ) ] && [ ! -f $(BUILD)/$(BLST_TGZ) ]; then \
	    mkdir -p $(BUILD)/_deps && cp $$d/$(BLST_TGZ) $(BUILD)/$(BLST_TGZ); fi; done
	cmake -S . -B $(BUILD) $(CMAKE_EXTRA) || { rm -f $(BUILD)/CMakeCache.txt; exit 1; }

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

npm-deps:
	@sh scripts/npm_deps.sh

# The build with its lines in $(BUILD)/build.log, shown (the end of it)
# only when it fails: the tests' summary is what `make test` prints.
quiet-build:
	@mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory build >$(BUILD)/build.log 2>&1 || \
	  { tail -n 30 $(BUILD)/build.log; \
	    echo "make: the build failed (all of it: $(BUILD)/build.log)"; exit 1; }
	@echo "build: ok ($(BUILD)/build.log)"

# ctest in folder $(1) with $(2) (its environment) and $(3) (arguments),
# its lines in $(1)/ctest.log and a JUnit file beside it, a short line per
# finished test meanwhile (scripts/test_progress.py; on a terminal one
# line rewritten in place); then the short summary
# (scripts/test_summary.py: counts, skipped tests and why, each failure's
# output; its last line the bare counts).  ctest's exit code is the
# target's (kept in ctest.rc across the pipe: sh has no pipefail).
run_ctest = @cd $(1) && rm -f ctest.rc && \
	{ $(2) ctest --output-on-failure -j $(JOBS) --output-junit ctest-junit.xml $(3) \
	  2>&1; echo $$? >ctest.rc; } | python3 $(CURDIR)/scripts/test_progress.py ctest.log; \
	rc=$$(cat ctest.rc 2>/dev/null || echo 1); \
	python3 $(CURDIR)/scripts/test_summary.py ctest-junit.xml $(CURDIR)/$(1)/ctest.log; \
	exit $$rc

test: deps npm-deps quiet-build
	$(call run_ctest,$(BUILD),$(TEST_ENV),)

# docs/live-page.png: the service's page in headless Chromium while it
# proves a batch (tests/cli_serve_live.sh writes it).
screenshot: build
	cd $(BUILD) && PL_PAGE_SCREENSHOT=$(CURDIR)/docs/live-page.png \
	  ctest -R '^cli_serve_live$$' --output-on-failure

# CI's sanitizer pass: everything but the tests labelled slow (see
# tests/CMakeLists.txt), under ASan and UBSan, in build-san-address-undefined.
test-san-fast: deps npm-deps
	@$(MAKE) --no-print-directory quiet-build SANITIZE=address,undefined
	$(call run_ctest,build-san-address-undefined,$(SAN_ENV),-LE slow)

# CI's ThreadSanitizer pass: the tests labelled tsan (the engine, ledger,
# prover, MSM, NTT and emulated CUDA tests, and CLI batch runs), in
# build-san-thread, blst instrumented too (about 8 minutes from a cold
# build on 2 cores; TSAN_BLST=asm: about 2, in build-san-thread-asm-blst,
# blind to blst's writes).
TSAN_BUILD := build-san-thread$(if $(filter asm,$(TSAN_BLST)),-asm-blst)
test-tsan-fast: deps npm-deps
	@$(MAKE) --no-print-directory quiet-build SANITIZE=thread
	$(call run_ctest,$(TSAN_BUILD),$(TSAN_ENV),-L tsan --timeout 1500)

fuzz-deps:
	@FUZZ_CC=$(FUZZ_CC) sh tests/fuzz/deps.sh

# libFuzzer targets in $(FUZZ_BUILD) (clang, ASan + UBSan, every object
# instrumented: tests/fuzz/build.sh), each run for FUZZ_SECONDS, printing
# its executions and coverage; fails on any crash, leak, timeout or OOM and
# keeps the input in tests/fuzz/regressions/<target>/, which `make test`
# replays (tests/fuzz/README.md).
fuzz: deps fuzz-deps
	FUZZ_CC=$(FUZZ_CC) JOBS=$(JOBS) sh tests/fuzz/build.sh . $(FUZZ_BUILD) \
	  $(foreach d,build $(wildcard build-san-*),$(d)/_deps)
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The build's lines in $(BUILD)/build.log, the ledger's in
# $(BUILD)/demo.log (scripts/demo.sh): the terminal shows what it did.
demo: deps quiet-build
	@sh scripts/demo.sh $(BUILD)/proofline

bench: deps npm-deps build
	@sh bench/run.sh $(BUILD)

# proofline serve under 1, 4 and 16 concurrent clients against batch on
# the same witnesses (bench/serve_load.sh; not part of make bench: it takes
# minutes on 2 cores).
bench-serve: deps build
	@bash bench/serve_load.sh $(BUILD)

# The story's mix at small scale: critical jobs of a small circuit among
# normal jobs of a large one, with classes and without (bench/serve_classes.sh).
bench-classes: deps build
	@bash bench/serve_classes.sh $(BUILD)

# Proving through one PostgreSQL queue with 1, 2, 3 workers, against batch
# (bench/cluster_load.sh).
bench-cluster: deps build
	@bash bench/cluster_load.sh $(BUILD)

# Each step of a ptau and a zkey ceremony against snarkjs on the same files
# (bench/ceremony_bench.sh; not part of make bench: snarkjs's prepare alone
# takes an hour at 2^16 here).
bench-ceremony: deps npm-deps build
	@bash bench/ceremony_bench.sh $(BUILD)

# The nvcc compile of all the device arithmetic (also part of make test
# when nvcc is found).
cuda-smoke: build
	cd $(BUILD) && ctest -R nvcc_smoke --output-on-failure

# CMake's install rules (CMakeLists.txt, "install"), for PREFIX under
# DESTDIR.  cmake --install lists the files it wrote in
# $(BUILD)/install_manifest.txt, without DESTDIR: install keeps DESTDIR
# beside it, so uninstall removes exactly those files where they were put
# (DESTDIR given to uninstall counts only when that record is missing)
# (and our own folder, share/doc/proofline; shared folders such as
# lib/pkgconfig stay).  NO_BUILD=1 installs (or packages) the build as it
# is: tests/cli_install.sh runs under make test, beside tests that run the
# build's binaries, and must never relink them.
install: $(if $(NO_BUILD),,build)
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"
	@printf '%s\n' "$(DESTDIR)" >$(BUILD)/install_destdir

uninstall:
	@test -f $(BUILD)/install_manifest.txt || \
	  { echo "make: nothing installed from $(BUILD) (no install_manifest.txt)"; exit 1; }
	@root="$(DESTDIR)"; \
	if [ -f $(BUILD)/install_destdir ]; then root=$$(cat $(BUILD)/install_destdir); fi; \
	while IFS= read -r f || [ -n "$$f" ]; do \
	  rm -f "$$root$$f" && echo "removed $$root$$f"; \
	  d=$$(dirname "$$f"); \
	  if [ "$${d##*/}" = proofline ]; then rmdir "$$root$$d" 2>/dev/null || true; fi; \
	done <$(BUILD)/install_manifest.txt
	@rm -f $(BUILD)/install_manifest.txt $(BUILD)/install_destdir

# The .deb (CPack, "the Debian package" in CMakeLists.txt) lands in $(BUILD).
package: $(if $(NO_BUILD),,build)
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf build build-san-* $(FUZZ_BUILD)
