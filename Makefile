# railkit: two commands a user needs.
#   make run   installs dependencies, builds, runs `railkit doctor` on the example
#              node in examples/, `railkit validate` with 4 local ranks checking that
#              node, then `railkit doctor` on this machine.
#   make test  installs dependencies, builds, runs every test through CTest (the
#              release tarball, make dist, make image and make docs among them),
#              then the suite again built with ASan+UBSan (clang), and make fuzz for
#              TEST_FUZZ_SECONDS per target beside the sanitizer tests; that
#              build compiles while the plain tests run. It ends with a
#              timing summary.
# Extra targets: make dist (the release tarball), make image (the OCI image),
#   make fuzz (each libFuzzer target replays its seeds and past crashes,
#   then fuzzes for FUZZ_SECONDS), make docs (rewrites the generated rule
#   and option tables of docs/).
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_SECONDS ?= 60
# make test runs make fuzz too, this long per target.
TEST_FUZZ_SECONDS ?= 2
EXAMPLE ?= examples/dgx-h100-8gpu
# Where make dist and make image write (the suite points it at a scratch dir).
DIST_DIR ?= dist

# The project() line's version. No parenthesis in the pattern: make counts
# them to find the end of $(shell ...), and an unbalanced one ended the call.
VERSION := $(shell awk '$$1 ~ /^project.railkit$$/ && $$2 == "VERSION" { print $$3; exit }' CMakeLists.txt)
DIST_TARBALL = $(DIST_DIR)/railkit-$(VERSION)-linux-x86_64.tar.gz

.PHONY: all deps build run test test-fast test-sanitize clean dist image fuzz asan-build

all: build

deps:
	./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@date +%s > $(BUILD)/build.start
	cmake --build $(BUILD) -j $(JOBS)

# After each command of make run: railkit's exit status in words. 1 means
# the command ran and found problems (the example node has some on purpose),
# which is what make run is there to show; 2 or more is a real failure.
EXPLAIN_EXIT = rc=$$?; \
	if [ $$rc -eq 0 ]; then echo "(exit 0: no problems found)"; \
	elif [ $$rc -eq 1 ]; then echo "(exit 1: railkit ran and reported the findings above; make run goes on)"; \
	else echo "(exit $$rc: railkit could not do its job)"; exit $$rc; fi

# make run builds the railkit binary only: a newcomer sees output without
# waiting for every test to compile.
run: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target railkit
	@echo "== railkit doctor --root $(EXAMPLE) (an 8-GPU, 8-NIC node with a few problems)"
	@$(BUILD)/railkit doctor --root $(EXAMPLE); $(EXPLAIN_EXIT)
	@echo
	@echo "== railkit validate: 4 ranks on this machine (--local), each checking the example node, then links and all_reduce over lo"
	@$(BUILD)/railkit validate --local 4 --root $(EXAMPLE) --expect-nics 8 --expect-gpus 8 -b 1M -e 16M --pairs-bytes 16M; $(EXPLAIN_EXIT)
	@echo
	@echo "== railkit doctor (this machine)"
	@$(BUILD)/railkit doctor; $(EXPLAIN_EXIT)

# The release tarball, packaged from the (portable) Release build: nothing
# is compiled twice. docs/install.md.
dist: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target railkit
	./scripts/dist.sh $(BUILD) $(DIST_DIR)

# The OCI image (dist/railkit-VERSION-oci.tar), built from the tarball.
image: dist
	./scripts/make-image.sh $(DIST_TARBALL) $(DIST_DIR)

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan-build: deps
	CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRAILKIT_SANITIZE=ON -DRAILKIT_FUZZ=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/bench/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 RAILKIT_SANITIZER_BUILD=1

test-sanitize: asan-build
	cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS)

# Fuzzing proper (not part of make test): every target for FUZZ_SECONDS; a
# crash input lands in fuzz/regressions/<target>/, which make test replays.
fuzz: asan-build
	cd $(ASAN_BUILD) && $(SANITIZER_ENV) RAILKIT_FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  ctest --output-on-failure -j $(JOBS) -L fuzz $(if $(FUZZ_LOG),-O $(FUZZ_LOG))

# make test: the sanitizer build compiles at low priority while the plain
# tests run (most of their time is spent waiting on network namespaces, one
# at a time), then the sanitizer tests run. Its compiler output goes to
# $(ASAN_BUILD)/make.log, whose tail is printed when that build fails. make
# test fails when the plain tests, the sanitizer build or its tests fail.
test: build
	@mkdir -p $(ASAN_BUILD); rm -f $(ASAN_BUILD)/make.rc $(ASAN_BUILD)/fuzz.rc; start=$$(date +%s); \
	( nice -n 15 $(MAKE) --no-print-directory asan-build > $(ASAN_BUILD)/make.log 2>&1; echo $$? > $(ASAN_BUILD)/make.rc ) & \
	echo "== plain tests ($(BUILD)); the sanitizer build compiles beside them (log: $(ASAN_BUILD)/make.log)"; \
	plain=0; ( cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -O ctest.log ) || plain=$$?; \
	plain_s=$$(( $$(date +%s) - start )); \
	echo "== plain tests done (exit $$plain); waiting for the sanitizer build"; wait; asan=$$(cat $(ASAN_BUILD)/make.rc); \
	wait_s=$$(( $$(date +%s) - start - plain_s )); \
	if [ "$$asan" != 0 ]; then tail -n 60 $(ASAN_BUILD)/make.log; echo "== sanitizer build failed (exit $$asan)"; exit 2; fi; \
	echo "== sanitizer tests ($(ASAN_BUILD)); make fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) beside them (log: $(ASAN_BUILD)/fuzz.log)"; \
	( fuzz_start=$$(date +%s); nice -n 10 $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) FUZZ_LOG=ctest-fuzz.log \
	    > $(ASAN_BUILD)/fuzz.log 2>&1; echo "$$? $$(( $$(date +%s) - fuzz_start ))" > $(ASAN_BUILD)/fuzz.rc ) & \
	sanitizer=0; ( cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS) -LE fuzz -O ctest.log ) || sanitizer=$$?; \
	sanitizer_s=$$(( $$(date +%s) - start - plain_s - wait_s )); \
	wait; read fuzz fuzz_s < $(ASAN_BUILD)/fuzz.rc; \
	echo "== make fuzz: each fuzz target replayed its seeds and past crashes, then fuzzed $(TEST_FUZZ_SECONDS) s (exit $$fuzz)"; \
	if [ "$$fuzz" != 0 ]; then tail -n 60 $(ASAN_BUILD)/fuzz.log; else grep -E "tests passed|Total Test time" $(ASAN_BUILD)/fuzz.log; fi; \
	build_s=$$(( start - $$(cat $(BUILD)/build.start 2>/dev/null || echo $$start) )); \
	./scripts/test-timing.sh "plain build=$$build_s:" "plain tests=$$plain_s:$(BUILD)/ctest.log" \
	  "sanitizer build, rest=$$wait_s:" "sanitizer tests=$$sanitizer_s:$(ASAN_BUILD)/ctest.log" \
	  "make fuzz (beside them)=$$fuzz_s:$(ASAN_BUILD)/ctest-fuzz.log"; \
	[ "$$sanitizer" = 0 ] || exit $$sanitizer; \
	[ "$$fuzz" = 0 ] || exit $$fuzz; \
	exit $$plain

# The generated reference tables of docs/ (the rule tables of doctor, lint and
# logs, the option tables of bench and validate, render's modes), rewritten
# from their declarations; the cli_rule_tables_test.ReferenceTables.* tests fail when a
# committed table differs.
.PHONY: docs
docs:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target cli_rule_tables_test
	RAILKIT_WRITE_DOCS=1 $(BUILD)/tests/cli/cli_rule_tables_test --gtest_filter='ReferenceTables.*'

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) dist
