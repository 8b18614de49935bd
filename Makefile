# The two entry points of the README. Everything else is CMake.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all demo test bench fuzz clean

all:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

demo: all
	./examples/run_demo.sh $(BUILD)/tirx

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
