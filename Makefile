# Two commands do all the set-up on a fresh Debian machine:
#   make demo   -- the whole pipeline on a simulated class
#   make test   -- the test suite
VENV    := .venv
PYTHON  ?= python3
STAMP   := $(VENV)/.installed-stamp

.PHONY: setup demo test bench clean system-deps

setup: $(STAMP)

# bubblewrap: the sandbox for student code; postgresql: the server the
# shared-gradebook tests start on loopback (the tests skip without it)
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
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
	$(VENV)/bin/pip install -q --disable-pip-version-check -c constraints.txt -e . 2>&1 | grep -v "^WARNING: Location" || true
	$(VENV)/bin/python -c "import gradekit, nbgrader, numpy, IPython, pytest, hypothesis, dask.distributed"
	touch $@

demo: setup
	$(VENV)/bin/gradekit demo

# the test suite, then every shipped assignment's own QA (gradekit check)
test: setup
	$(VENV)/bin/python -m pytest -q tests
	for a in $$(ls source); do $(VENV)/bin/gradekit check $$a --students 5 || exit 1; done

# side by side with nbgrader (ratio, floor), then class sizes 10/100/1000 (time, generate, peak memory)
bench: setup
	$(VENV)/bin/python bench/run.py
	$(VENV)/bin/python bench/run.py --sizes 10,100,1000

clean:
	rm -rf $(VENV) submitted autograded feedback gradebook.db
