# Two commands do all the set-up on a fresh Debian machine:
#   make demo   -- the whole pipeline on a simulated class
#   make test   -- the test suite
VENV    := .venv
PYTHON  ?= python3
STAMP   := $(VENV)/.installed-stamp

.PHONY: setup demo test lint bench clean system-deps translations

# the gettext catalogs (gradekit/locale/*.po, source/*/locale/*.po) compiled to .mo beside them
setup: $(STAMP) translations

translations: $(STAMP)
	@$(VENV)/bin/python -m gradekit.i18n compile .

# bubblewrap: the sandbox for student code; postgresql: the server the
# shared-gradebook tests start on loopback (the tests skip without it);
# chromium: the browser the report's tests drive through Playwright (never
# `playwright install`: its own browser download is not used); fonts-noto-cjk:
# the pages' Chinese font
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	fc-list 2>/dev/null | grep -q "Noto Sans CJK" || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing system packages:$$missing (sudo apt-get install$$missing)"; \
	  fi; \
	fi

$(STAMP): pyproject.toml constraints.txt | system-deps
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -c constraints.txt -e ".[test]" 2>&1 | grep -v "^WARNING: Location" || true
	$(VENV)/bin/python -c "import gradekit, nbgrader, numpy, IPython, pytest, hypothesis, dask.distributed, vl_convert, playwright"
	$(VENV)/bin/ruff --version >/dev/null && $(VENV)/bin/mypy --version >/dev/null
	touch $@

demo: setup
	$(VENV)/bin/gradekit demo

# the linter and the type checker on gradekit/, the test suite, then every shipped assignment's own QA
test: setup lint
	$(VENV)/bin/python -m pytest -q tests
	for a in $$(ls source); do $(VENV)/bin/gradekit check $$a --students 5 || exit 1; done

# ruff (lint and format) and mypy, configured in pyproject.toml
lint: $(STAMP)
	$(VENV)/bin/ruff check gradekit
	$(VENV)/bin/ruff format --check gradekit
	$(VENV)/bin/mypy

# side by side with nbgrader (ratio, floor), then class sizes 10/100/1000 (time, generate, peak memory),
# then copy detection: precision, recall and time on synthetic classes of 212 and 1,000
bench: setup
	$(VENV)/bin/python bench/run.py
	$(VENV)/bin/python bench/run.py --sizes 10,100,1000
	$(VENV)/bin/python bench/report.py --sizes 100,1000
	$(VENV)/bin/python bench/integrity.py

clean:
	rm -rf $(VENV) submitted autograded feedback reports gradebook.db
