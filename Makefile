# The two entry points of the README. Everything else is CMake.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
# Extra configure flags, e.g. CMAKE_FLAGS=-DTIRX_TESTS=OFF where cmocka/FileCheck are missing.
CMAKE_FLAGS ?=

.PHONY: all configure demo test bench fuzz clean

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

# Compiles every example; on a GPU also runs and checks them (examples/run_demo.sh).
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target tirx tirx_demo
	./examples/run_demo.sh $(BUILD)

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: all
	cmake --build $(BUILD) --target bench

# The front-end fuzz target (clang-14, libFuzzer + ASan + UBSan) for FUZZ_SECONDS.
fuzz:
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang-14 -DTIRX_FUZZ=ON -DTIRX_TESTS=OFF
	cmake --build $(FUZZ_BUILD) --target fuzz_parse -j $(JOBS)
	tests/fuzz/run.sh $(FUZZ_BUILD)/tests/fuzz/fuzz_parse $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
