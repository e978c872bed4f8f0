# The two commands of README.rst: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-tools test-controllers unit functional lint genconfig genpolicy clean

# Installed with uv (itself one of the test requirements), which resolves
# and installs in a fraction of pip's time; compiled as installed, as pip
# does. pip is still there, up to date: the packaging tests build the wheel
# with it, as a distribution does.
UV_INSTALL := $(BIN)/uv pip install --quiet --python $(BIN)/python

$(STAMP): requirements.txt test-requirements.txt setup.cfg
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip uv
	$(UV_INSTALL) --compile-bytecode -r requirements.txt -r test-requirements.txt
	$(UV_INSTALL) --no-deps -e .
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python tools/demo.py

# The tests run in TEST_WORKERS processes (pytest-xdist), a test at a time
# each: the functional tests mostly wait on daemons, servers and timers,
# so more processes than cores still shorten the run, and an idle process
# takes tests queued for a busy one (worksteal), so that the long tests
# do not end up queued behind each other.
TEST_WORKERS ?= 4

test: $(STAMP) test-tools
	$(BIN)/ruff check watcher_ha tests tools
	$(BIN)/python -m pytest -q -ra --durations=15 -n $(TEST_WORKERS) \
		--dist worksteal -m 'not three_controllers' tests

# Three controllers' Galera, RabbitMQ and etcd clusters on this machine
# (tools/controllers.py), from Debian's packages.
test-controllers: $(STAMP)
	$(BIN)/python -m pytest -q -ra -m three_controllers tests

# Programs the functional tests run themselves (not servers they expect
# running): installed from Debian under CI=true only, a no-op otherwise.
# Each is PACKAGE or PACKAGE:PROGRAM, the Debian package and the program
# (or file) it brings when their names differ (systemd also brings
# systemd-analyze and systemd-sysusers, for the units' tests; chromium and
# chromedriver are the Horizon test's headless browser; the rest are the
# three controllers' backends, tools/controllers.py, and nftables their
# partitions).
TEST_TOOLS := prometheus shellcheck systemd chromium \
	chromium-driver:chromedriver mariadb-server:mariadbd \
	galera-4:/usr/lib/galera/libgalera_smm.so rsync \
	rabbitmq-server:/usr/lib/rabbitmq/bin/rabbitmq-server \
	etcd-server:etcd haproxy nftables:nft

test-tools:
	@missing=; for tool in $(TEST_TOOLS); do \
		found=$${tool#*:}; \
		command -v $$found >/dev/null || [ -e "$$found" ] || \
			missing="$$missing $${tool%%:*}"; \
	done; \
	if [ "$$CI" = true ] && [ -n "$$missing" ]; then \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $$missing; \
	fi

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

functional: $(STAMP) test-tools
	$(BIN)/python -m pytest -q tests/functional

lint: $(STAMP)
	$(BIN)/ruff check watcher_ha tests tools

genconfig: $(STAMP)
	$(BIN)/oslo-config-generator --config-file etc/watcher-ha/config-generator.conf

genpolicy: $(STAMP)
	$(BIN)/oslopolicy-sample-generator --config-file etc/watcher-ha/policy-generator.conf

clean:
	rm -rf $(VENV) demo-state state .pytest_cache *.egg-info
