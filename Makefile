# dbt_analyze — `make demo` and `make test` work on a fresh machine (Python 3.10+ and Java 17).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The embedded Spark's metastore and warehouse live here, not in the current directory.
export DBT_ANALYZE_HOME ?= $(CURDIR)/.spark
# Quieter Spark console logging for the demo (integration_tests/profiles.yml reads it).
export DBT_ANALYZE_LOG4J2 ?= $(CURDIR)/integration_tests/log4j2.properties
DBT := cd integration_tests && ../$(BIN)/dbt
SCALE ?= 1

.PHONY: env java chromium demo test test-thrift bench bench-cost bench-floor bench-tests bench-sample bench-groups estimation clean

env: $(VENV)/.installed

$(VENV)/.installed: python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# compat mode: a path entry that pkgutil lists, so dbt imports the dbt_analyze plugin
	$(BIN)/pip install -q -e 'python[test]' --config-settings editable_mode=compat
	touch $@

java:
	@if ! command -v java >/dev/null 2>&1; then \
	  echo "Java 17 is needed for Spark."; \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "Installing openjdk-17-jre-headless with apt-get..."; \
	    apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless; \
	  else \
	    echo "Install it: sudo apt-get install openjdk-17-jre-headless (Debian/Ubuntu), brew install openjdk@17 (macOS)"; exit 1; \
	  fi; \
	fi

# Headless Chromium for the docs test (Debian's package), installed when it can be.
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "Installing chromium with apt-get (for the docs test)..."; \
	    apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The docs test needs Chromium: sudo apt-get install chromium"; exit 1; \
	  fi; \
	fi

demo: env java
	mkdir -p $(DBT_ANALYZE_HOME)
	$(DBT) deps --profiles-dir .
	$(DBT) build --profiles-dir .
	$(DBT) run-operation analyze_table --profiles-dir . --args '{statement: "ANALYZE TABLE analytics.orders COMPUTE STATISTICS FOR ALL COLUMNS"}'
	cd integration_tests && ../$(BIN)/dbt-analyze docs generate --profiles-dir .
	@echo "Statistics are in the docs too: cd integration_tests && ../$(BIN)/dbt docs serve --profiles-dir ."


# Three workers, each running whole modules (longest first) on a Spark of its own: a third keeps
# both cores busy while another waits on the processes it started.
test: env java chromium
	$(BIN)/pytest -q -n 3 --dist loadgroup --no-loadscope-reorder --rootdir . --durations=0 --durations-min=20 --doctest-modules python/src python/tests integration_tests/tests

# The Thrift-server suite alone (make test runs it too).
test-thrift: env java
	$(BIN)/pytest -q integration_tests/tests/test_thrift.py

bench: env java
	$(BIN)/pip install -q -e 'python[bench]' --config-settings editable_mode=compat
	$(BIN)/python bench/bench.py --scale $(SCALE) $(if $(TPCH_SF),--tpch-sf $(TPCH_SF))

# A run's cost against Spark's own ANALYZE, side by side, then what the post-hook adds to whole
# builds, each a fresh process (BENCHMARKS.md, "What a run costs").
bench-cost: env java
	$(BIN)/pip install -q -e 'python[bench]' --config-settings editable_mode=compat
	$(BIN)/python bench/run_cost.py --scale $(SCALE)
	$(BIN)/python bench/build_cost.py

# Data tests from statistics against the same checks as SQL over the data, TPC-H SF 0.1 and 1 (BENCHMARKS.md).
bench-tests: env java
	$(BIN)/pip install -q -e 'python[bench]' --config-settings editable_mode=compat
	$(BIN)/python bench/statistics_tests.py

# Spark's floor under any run: the least statements a run needs, with pyspark alone (docs/decisions/spark-floor.md).
bench-floor: env java
	$(BIN)/python bench/spark_floor.py

estimation: env java
	$(BIN)/python bench/estimation.py --scale $(SCALE) $(if $(SAMPLE_ROWS),--sample-rows $(SAMPLE_ROWS))

# Full runs with the KLL and top-k sketches fed samples of three sizes, against Spark's ANALYZE with
# histograms, on the mixed table and TPC-H lineitem (BENCHMARKS.md, "Full runs with sampled sketches").
bench-sample: env java
	$(BIN)/pip install -q -e 'python[bench]' --config-settings editable_mode=compat
	$(BIN)/python bench/sampled_sketches.py --tpch-sf $(or $(TPCH_SF),1)

# Column groups: stored counts and estimates with and without them (ESTIMATION.md), and what a group
# adds to a full run of TPC-H lineitem (BENCHMARKS.md), at SF 1.
bench-groups: env java
	$(BIN)/pip install -q -e 'python[bench]' --config-settings editable_mode=compat
	$(BIN)/python bench/column_groups.py --tpch-sf $(or $(TPCH_SF),1)

clean:
	rm -rf $(VENV) .spark integration_tests/target integration_tests/dbt_packages integration_tests/logs
