# Two commands do all the set-up on a fresh Debian machine:
#   make demo   -- the whole pipeline on a simulated class
#   make test   -- the test suite
VENV    := .venv
PYTHON  ?= python3
STAMP   := $(VENV)/.installed-stamp

.PHONY: setup demo test bench clean system-deps

setup: $(STAMP)

system-deps:
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (the sandbox for student code)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else \
	    echo "bubblewrap is missing: run 'sudo apt-get install bubblewrap' (or grade with --no-sandbox)"; \
	  fi; \
	fi

$(STAMP): pyproject.toml | system-deps
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -e . 2>&1 | grep -v "^WARNING: Location" || true
	$(VENV)/bin/python -c "import gradekit, nbgrader, numpy, IPython, pytest, hypothesis, dask.distributed"
	touch $@

demo: setup
	$(VENV)/bin/gradekit demo

test: setup
	$(VENV)/bin/python -m pytest -q tests

bench: setup
	$(VENV)/bin/python bench/run.py

clean:
	rm -rf $(VENV) submitted autograded feedback gradebook.db
