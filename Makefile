# Two commands for a fresh machine (see README):
#   make serve   set everything up and run http://127.0.0.1:8000 with the first example loaded
#   make test    set everything up (test tools, Debian's chromium and pdflatex included) and run all tests
#   make dist    the sdist and the wheel in dist/, the page bundled in (hatch_build.py)
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
HOST   ?= 127.0.0.1
PORT   ?= 8000
# tests/e2e/test_widget_vscode.py's own npm project: VS Code's ipywidgets 8 front end and
# JupyterLab's services (about 350 MB). Installed for the tests only, never by `make setup`,
# `make dist` or hatch_build.py, and not in the sdist (pyproject.toml's only-include).
VSCODE_HARNESS := tests/e2e/vscode_renderer

.PHONY: serve test setup setup-test build chromium latex pytest jstest clean bench dist

serve: setup
	$(VENV)/bin/gradwalk serve --host $(HOST) --port $(PORT)

test: setup-test
	npm test
	$(PY) -m pytest

setup: $(VENV)/.app build

setup-test: setup $(VENV)/.test $(VSCODE_HARNESS)/node_modules/.package-lock.json chromium latex

$(VENV)/.app: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.app pyproject.toml
	$(PIP) install --quiet -e ".[test]"
	touch $@

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

$(VSCODE_HARNESS)/node_modules/.package-lock.json: $(VSCODE_HARNESS)/package-lock.json
	npm ci --prefix $(VSCODE_HARNESS) --no-audit --no-fund

build: node_modules/.package-lock.json
	npm run build --silent

# The build tools are the test extra's (build, hatchling, editables): no isolated download.
dist: $(VENV)/.test node_modules/.package-lock.json
	$(PY) -m build --no-isolation --outdir dist .

# Debian packages for the tests, as root or through sudo: $(call apt_install,PACKAGES)
apt_install = if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1); \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1); fi

# Browser tests drive Debian's chromium (never a downloaded browser).
chromium:
	@command -v chromium >/dev/null || { $(call apt_install,chromium); }

# The LaTeX export's tests compile it with pdflatex and read the PDF with pdftotext.
latex:
	@command -v pdflatex >/dev/null && command -v pdftotext >/dev/null || { \
	  $(call apt_install,--no-install-recommends texlive-latex-base texlive-latex-recommended poppler-utils); }

# Engine speed against micrograd, PyTorch and numpy, side by side; writes docs/performance.md
bench: setup
	$(PIP) install --quiet -e ".[bench]"
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) node_modules $(VSCODE_HARNESS)/node_modules static/dist dist
