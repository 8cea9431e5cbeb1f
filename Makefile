# Two commands for a fresh machine (see README):
#   make serve   set everything up and run http://127.0.0.1:8000 with the first example loaded
#   make test    set everything up (test tools and Debian's chromium included) and run all tests
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test setup setup-test build chromium pytest jstest clean bench

serve: setup
	$(VENV)/bin/gradwalk serve --host $(HOST) --port $(PORT)

test: setup-test
	npm test
	$(PY) -m pytest

setup: $(VENV)/.app build

setup-test: setup $(VENV)/.test chromium

$(VENV)/.app: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.app pyproject.toml
	$(PIP) install --quiet -e ".[test]"
	touch $@

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

build: node_modules/.package-lock.json
	npm run build --silent

# Browser tests drive Debian's chromium (never a downloaded browser).
chromium:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; fi; }

# Engine speed against micrograd, PyTorch and numpy, side by side; writes docs/performance.md
bench: setup
	$(PIP) install --quiet -e ".[bench]"
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) node_modules static/dist
