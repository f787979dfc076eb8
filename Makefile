# dlsim: the two front-door commands are `make demo` and `make test`.
# Both install what is missing (Debian packages, via tools/setup.sh), configure and
# build from scratch when needed.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
PYTHON := /usr/bin/python3

.PHONY: all setup configure build build-dlsim test test-fast sanitize tsan fuzz demo bench bench-e2e bench-instructions bench-simgrid docs format clean

all: build

setup:
	@bash tools/setup.sh

configure: setup
	@mkdir -p $(BUILD_DIR)
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release > $(BUILD_DIR)/configure.log 2>&1 || \
	  { cat $(BUILD_DIR)/configure.log; exit 1; }

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Every test, including the slow end-to-end ones (label "slow").
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Everything but the slow end-to-end tests, for quick local iterations.
test-fast: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_ARGS)

# The sanitizer builds keep their cost down, because CI runs both after `make test` and a
# slow machine must still finish inside its time limit: unity batches as in the main
# build, line tables only (-g1: file and line in every report, a third less compile
# time than -g and a quarter of the binary size) and lld (a 400 MB test binary linked in
# 3 s rather than ld's 14 s). `make fuzz` still compiles every file alone.
SANITIZER_DEBUG := -O1 -g1
SANITIZER_LINKER := -fuse-ld=lld

# The fast test suite built with AddressSanitizer + UndefinedBehaviorSanitizer in its own
# build directory; any finding aborts the test that hit it.
SANITIZE_DIR ?= build-asan
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
sanitize: setup
	@mkdir -p $(SANITIZE_DIR)
	@cmake -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(SANITIZER_DEBUG)" "-DCMAKE_CXX_FLAGS=$(SANITIZE_FLAGS)" \
	  "-DCMAKE_EXE_LINKER_FLAGS=$(SANITIZE_FLAGS) $(SANITIZER_LINKER)" -DDLSIM_BENCH=OFF \
	  > $(SANITIZE_DIR)/configure.log 2>&1 || { cat $(SANITIZE_DIR)/configure.log; exit 1; }
	@cmake --build $(SANITIZE_DIR) -j $(JOBS)
	cd $(SANITIZE_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE slow -E '^cli\.(sweep_mpi|run_mpi|run_mpi_kinds)$$' $(CTEST_ARGS)
	@# Open MPI does not free its own allocations at MPI_Finalize: no leak check there.
	cd $(SANITIZE_DIR) && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -R '^cli\.(sweep_mpi|run_mpi|run_mpi_kinds)$$' $(CTEST_ARGS)

# The thread pool's tests (the unit tests of `--threads`, the parallel metrics evaluation,
# and the CLI's --threads 1/2/0 comparison), and the Fashion-MNIST loader's (its test set
# loads on a thread of its own), built with ThreadSanitizer in their own
# build directory; any data race aborts the test that hit it. Eigen is single-threaded
# here (no OpenMP), so every thread TSan sees is ours. GCC instruments the ifunc
# resolvers of target_clones functions (models/compress), which then crash at load time,
# before the TSan runtime is up: those files drop target_clones under __SANITIZE_THREAD__.
TSAN_DIR ?= build-tsan
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
TSAN_TESTS := job_pool_test threads_test threads_algorithms_test evaluation_chunks_test fashion_mnist_test \
  heap_prefault_test sized_payload_test
# ctest labels are the test file names: ^(threads_test|...)$
TSAN_LABELS := ^($(subst $() ,|,$(TSAN_TESTS)))$$
tsan: setup
	@mkdir -p $(TSAN_DIR)
	@cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(SANITIZER_DEBUG)" "-DCMAKE_CXX_FLAGS=$(TSAN_FLAGS)" \
	  "-DCMAKE_EXE_LINKER_FLAGS=$(TSAN_FLAGS) $(SANITIZER_LINKER)" -DDLSIM_BENCH=OFF \
	  > $(TSAN_DIR)/configure.log 2>&1 || { cat $(TSAN_DIR)/configure.log; exit 1; }
	@cmake --build $(TSAN_DIR) -j $(JOBS) --target dlsim $(TSAN_TESTS)
	cd $(TSAN_DIR) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(JOBS) -L '$(TSAN_LABELS)' $(CTEST_ARGS)
	cd $(TSAN_DIR) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -R '^cli\.threads$$' $(CTEST_ARGS)

# libFuzzer targets (clang only) for the scenario parser and the data loaders; each runs
# FUZZ_SECONDS on a scratch copy of the committed seed corpus in tests/fuzz/corpus/.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_scenario fuzz_csv fuzz_libsvm fuzz_idx
fuzz: setup
	@mkdir -p $(FUZZ_DIR)
	@CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLSIM_FUZZ=ON \
	  -DDLSIM_BENCH=OFF -DDLSIM_UNITY_BUILD=OFF -DBUILD_TESTING=OFF > $(FUZZ_DIR)/configure.log 2>&1 || \
	  { cat $(FUZZ_DIR)/configure.log; exit 1; }
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do \
	  name=$${t#fuzz_}; mkdir -p $(FUZZ_DIR)/corpus/$$name; \
	  cp tests/fuzz/corpus/$$name/* $(FUZZ_DIR)/corpus/$$name/ 2>/dev/null; \
	  echo "== $$t ($(FUZZ_SECONDS) s)"; \
	  $(FUZZ_DIR)/bin/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus/$$name || exit 1; \
	done

# Only the `dlsim` program: what the demo needs (the tests and benchmarks are not built).
build-dlsim: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target dlsim

# The comparison of scenarios/quickstart.json: its sweep (3 algorithms x 2 seeds), one
# banded curve per algorithm (bits and simulated time against the loss), and the bits
# each needs to reach a train loss of 0.01, as a ratio to SGD's.
DEMO_DIR := results/quickstart
demo: build-dlsim
	@rm -rf $(DEMO_DIR)
	$(BUILD_DIR)/bin/dlsim sweep scenarios/quickstart.json --jobs $(JOBS) --out $(DEMO_DIR) --quiet
	$(PYTHON) tools/dlsim-plot $(DEMO_DIR) --x bits --y train_loss --logy --out $(DEMO_DIR)/bits_vs_loss.png
	$(PYTHON) tools/dlsim-plot $(DEMO_DIR) --x time --y train_loss --logy --out $(DEMO_DIR)/time_vs_loss.png
	$(PYTHON) tools/dlsim-table $(DEMO_DIR) --group-by algorithm.kind --bits-to-loss 0.01 \
	  --baseline algorithm.kind=sgd
	@echo "demo: results in $(DEMO_DIR)/ (runs.csv, one folder per run, bits_vs_loss.png, time_vs_loss.png)"

# Every Google Benchmark program in bench/ (figures in the README).
bench: build
	@for b in $(BUILD_DIR)/bin/*_bench; do echo "== $$b"; $$b --benchmark_counters_tabular=true || exit 1; done

# The end-to-end cases of scenarios/bench/ (median of BENCH_RUNS runs), one table.
BENCH_RUNS ?= 3
bench-e2e: build
	$(PYTHON) bench/e2e.py --dlsim $(BUILD_DIR)/bin/dlsim --runs $(BENCH_RUNS)

# Instructions per simulated worker and round (valgrind's cachegrind: the same on every
# run, unlike wall time); OLD=<binary> adds a column for another build.
bench-instructions: build-dlsim
	$(PYTHON) bench/instructions_per_round.py --dlsim $(BUILD_DIR)/bin/dlsim $(if $(OLD),--old $(OLD))

# dlsim against SimGrid 3.32 on the 1024-node ring gossip (median of 5 runs each, one
# table); needs libsimgrid-dev, without which simgrid_gossip_ring1024 is not built.
bench-simgrid: build
	$(PYTHON) bench/simgrid_side_by_side.py --dlsim $(BUILD_DIR)/bin/dlsim \
	  --simgrid-bin $(BUILD_DIR)/bin/simgrid_gossip_ring1024

# The scenario key reference, generated from the validator's table.
docs: build
	$(BUILD_DIR)/bin/dlsim schema --markdown > docs/scenario-reference.md

format:
	@find spec rng sim models topologies tools tests bench examples -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
