# railkit: two commands a user needs.
#   make run   installs dependencies, builds, runs `railkit doctor` on the example
#              node in examples/, `railkit validate` with 4 local ranks checking that
#              node, then `railkit doctor` on this machine.
#   make test  installs dependencies, builds, runs every test through CTest, then
#              the same suite again built with ASan+UBSan (clang), fuzz targets included.
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
EXAMPLE ?= examples/dgx-h100-8gpu

.PHONY: all deps build run test test-fast test-sanitize clean

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

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-sanitize: deps
	CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRAILKIT_SANITIZE=ON -DRAILKIT_FUZZ=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/bench/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 RAILKIT_SANITIZER_BUILD=1 \
	  ctest --output-on-failure -j $(JOBS)

test: test-fast test-sanitize

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
