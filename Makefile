# railkit: two commands a user needs.
#   make run   installs dependencies, builds, runs `railkit doctor` on the example
#              node in examples/, `railkit validate` with 4 local ranks checking that
#              node, then `railkit doctor` on this machine.
#   make test  installs dependencies, builds, runs every test through CTest (the
#              release tarball and image among them), then the suite again
#              built with ASan+UBSan (clang), fuzz targets replaying their
#              corpora; that build compiles while the plain tests run.
# Extra targets: make dist (the release tarball), make image (the OCI image),
#   make fuzz (each libFuzzer target fuzzes for FUZZ_SECONDS; make test only
#   replays their seeds and past crashes).
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_SECONDS ?= 60
EXAMPLE ?= examples/dgx-h100-8gpu

VERSION = $(shell sed -n 's/^project(railkit VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
DIST_TARBALL = dist/railkit-$(VERSION)-linux-x86_64.tar.gz

.PHONY: all deps build run test test-fast test-sanitize clean dist image fuzz asan-build

all: build

deps:
	./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# make run builds the railkit binary only: a newcomer sees output without
# waiting for every test to compile.
run: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target railkit
	@echo "== railkit doctor --root $(EXAMPLE) (an 8-GPU, 8-NIC node with a few problems)"
	-./$(BUILD)/railkit doctor --root $(EXAMPLE)
	@echo
	@echo "== railkit validate: 4 ranks on this machine (--local), each checking the example node, then links and all_reduce over lo"
	-./$(BUILD)/railkit validate --local 4 --root $(EXAMPLE) --expect-nics 8 --expect-gpus 8 -b 1M -e 16M --pairs-bytes 16M
	@echo
	@echo "== railkit doctor (this machine)"
	-./$(BUILD)/railkit doctor

# The release tarball, packaged from the (portable) Release build: nothing
# is compiled twice. docs/install.md.
dist: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target railkit
	./scripts/dist.sh $(BUILD) dist

# The OCI image (dist/railkit-VERSION-oci.tar), built from the tarball.
image: dist
	./scripts/make-image.sh $(DIST_TARBALL) dist

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
	  ctest --output-on-failure -j $(JOBS) -L fuzz

# make test: the sanitizer build compiles at low priority while the plain
# tests run (most of their time is spent waiting on network namespaces, one
# at a time), then the sanitizer tests run. Its compiler output goes to
# $(ASAN_BUILD)/make.log, whose tail is printed when that build fails. make
# test fails when the plain tests, the sanitizer build or its tests fail.
test: build
	@mkdir -p $(ASAN_BUILD); rm -f $(ASAN_BUILD)/make.rc; \
	( nice -n 15 $(MAKE) --no-print-directory asan-build > $(ASAN_BUILD)/make.log 2>&1; echo $$? > $(ASAN_BUILD)/make.rc ) & \
	echo "== plain tests ($(BUILD)); the sanitizer build compiles beside them (log: $(ASAN_BUILD)/make.log)"; \
	plain=0; ( cd $(BUILD) && ctest --output-on-failure -j $(JOBS) ) || plain=$$?; \
	echo "== plain tests done (exit $$plain); waiting for the sanitizer build"; wait; asan=$$(cat $(ASAN_BUILD)/make.rc); \
	if [ "$$asan" != 0 ]; then tail -n 60 $(ASAN_BUILD)/make.log; echo "== sanitizer build failed (exit $$asan)"; exit 2; fi; \
	echo "== sanitizer tests ($(ASAN_BUILD))"; \
	( cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS) ) || exit $$?; \
	exit $$plain

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) dist
