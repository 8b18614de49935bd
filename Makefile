# The two entry points of the README. Everything else is CMake.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
# Extra configure flags, e.g. CMAKE_FLAGS=-DTIRX_WERROR=ON (what .ci/run builds with).
CMAKE_FLAGS ?=
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all configure demo test test-deps bench fuzz clean

all: configure
	cmake --build $(BUILD) -j $(JOBS)

# Without the tests unless the build directory already has them (a `make test` before):
# a C compiler, cmake and make are all it needs.
configure:
	$(CONFIGURE) $(CMAKE_FLAGS)

# Compiles every example; on a GPU also runs and checks them (examples/run_demo.sh).
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target tirx tirx_demo
	./examples/run_demo.sh $(BUILD)

# Installs what the tests need (as root; else prints the command), then builds and runs them.
test: test-deps
	$(CONFIGURE) -DTIRX_TESTS=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-deps:
	@tests/tools/deps.sh

bench: all
	cmake --build $(BUILD) --target bench

# The fuzz targets (clang-14, libFuzzer + ASan + UBSan), each for FUZZ_SECONDS:
# the front end's round trip, then parse through the pipeline to CUDA.
fuzz:
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang-14 -DTIRX_FUZZ=ON
	cmake --build $(FUZZ_BUILD) --target fuzz_parse fuzz_pipeline -j $(JOBS)
	tests/fuzz/run.sh $(FUZZ_BUILD)/tests/fuzz/fuzz_parse $(FUZZ_SECONDS)
	tests/fuzz/run.sh $(FUZZ_BUILD)/tests/fuzz/fuzz_pipeline $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
