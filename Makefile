# dlsim: the two front-door commands are `make demo` and `make test`.
# Both install what is missing (Debian packages, via tools/setup.sh), configure and
# build from scratch when needed.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
PYTHON := /usr/bin/python3

.PHONY: all setup configure build test test-fast demo bench docs format clean

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

demo: build
	$(BUILD_DIR)/bin/dlsim run scenarios/quickstart.json --out results/quickstart
	$(PYTHON) tools/dlsim-plot results/quickstart --x time --y train_loss --out results/quickstart/loss.png
	$(PYTHON) tools/dlsim-plot results/quickstart --x bits --y train_loss --logy --out results/quickstart/bits_vs_loss.png
	@echo "demo: results in results/quickstart/ (metrics.csv, summary.json, loss.png, bits_vs_loss.png)"

bench: build
	$(BUILD_DIR)/bin/engine_bench --benchmark_counters_tabular=true

# The scenario key reference, generated from the validator's table.
docs: build
	$(BUILD_DIR)/bin/dlsim schema --markdown > docs/scenario-reference.md

format:
	@find sim models topologies tools tests bench -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
