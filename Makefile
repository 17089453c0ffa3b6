# Two commands do all the set-up on a fresh Debian machine:
#   make demo   -- the whole pipeline on a simulated class
#   make test   -- the test suite
VENV    := .venv
PYTHON  ?= python3
STAMP   := $(VENV)/.installed-stamp

.PHONY: setup demo test lint bench clean system-deps translations deploy private-homes

# the gettext catalogs (gradekit/locale/*.po, source/*/locale/*.po) compiled to .mo beside them
setup: $(STAMP) translations

translations: $(STAMP)
	@$(VENV)/bin/python -m gradekit.i18n compile .

# bubblewrap: the sandbox for student code; postgresql: the server the
# shared-gradebook tests start on loopback (the tests skip without it);
# chromium: the browser the report's tests drive through Playwright (never
# `playwright install`: its own browser download is not used); fonts-noto-cjk:
# the pages' Chinese font; python3-venv: Debian's Python for the student deployment (below); nodejs and
# npm: JupyterHub's proxy (configurable-http-proxy, from npm, installed with the deployment); acl:
# getfacl/setfacl, to see (and the tests to set) who else may read a student's release
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	/usr/bin/python3 -c "import venv, ensurepip" >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	command -v setfacl >/dev/null 2>&1 || missing="$$missing acl"; \
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
	$(VENV)/bin/pip install -q --disable-pip-version-check -c constraints.txt -e ".[test,hub]" 2>&1 | grep -v "^WARNING: Location" || true
	$(VENV)/bin/python -c "import gradekit, nbgrader, numpy, IPython, pytest, hypothesis, dask.distributed, vl_convert, playwright, jupyterhub"
	$(VENV)/bin/ruff --version >/dev/null && $(VENV)/bin/mypy --version >/dev/null
	touch $@

demo: setup
	$(VENV)/bin/gradekit demo

# The deployment students run, apart from the course: gradekit installed as a package (never the course
# directory, which students must not read, nor this repository's course, `gradekit_course`: its solutions
# and graders would be readable by every account) on Debian's Python, in a folder every account may enter, with
# JupyterHub, JupyterLab, Notebook and nbgrader, and JupyterHub's proxy from npm. The tests' real Unix
# students run it; as another user than root it is skipped (and so are those tests).
DEPLOY  ?= /opt/gradekit
DEPLOY_STAMP := $(DEPLOY)/.installed-$(shell find Makefile pyproject.toml constraints.txt gradekit -type f -not -path '*/__pycache__/*' -not -name '*.mo' 2>/dev/null | sort | xargs cat | sha256sum | cut -c1-12)
deploy: $(STAMP)
	@if [ "$$(id -u)" != 0 ]; then echo "deploy: skipped (the student deployment in $(DEPLOY) is built as root)"; exit 0; fi; \
	if [ -f $(DEPLOY_STAMP) ]; then exit 0; fi; \
	set -e; umask 022; mkdir -p $(DEPLOY); \
	test -x $(DEPLOY)/venv/bin/python || /usr/bin/python3 -m venv $(DEPLOY)/venv; \
	tmp=$$(mktemp -d); cp -r pyproject.toml README.md gradekit $$tmp/; \
	find $$tmp -name __pycache__ -prune -exec rm -rf {} +; \
	/usr/bin/python3 -c "import re, sys; p = sys.argv[1]; t = open(p).read(); \
	  t = re.sub(r',\s*\"gradekit_course\"', '', t); t = re.sub(r'\npackage-dir = .*', '', t); \
	  t = re.sub(r'\ngradekit_course = \[.*?\]', '', t, flags=re.S); open(p, 'w').write(t)" $$tmp/pyproject.toml; \
	if grep -q '^[^#]*gradekit_course' $$tmp/pyproject.toml; then echo "deploy: gradekit_course still in the package list"; exit 1; fi; \
	$(DEPLOY)/venv/bin/pip uninstall -q -y gradekit >/dev/null 2>&1 || true; \
	$(DEPLOY)/venv/bin/pip install -q --disable-pip-version-check -c constraints.txt "$$tmp" "jupyterhub>=6,<7" \
	  "jupyterlab>=4.6,<5" "notebook>=7.6,<8" 2>&1 | grep -v "^WARNING: Location" || true; \
	rm -rf $$tmp; \
	test -x $(DEPLOY)/node_modules/.bin/configurable-http-proxy || \
	  npm install -s --prefix $(DEPLOY) --no-audit --no-fund configurable-http-proxy@5.3.0 >/dev/null; \
	$(DEPLOY)/venv/bin/python -c "import gradekit.handout.exchange, jupyterhub, jupyterlab, nbgrader"; \
	if $(DEPLOY)/venv/bin/python -c "import gradekit_course" 2>/dev/null; then \
	  echo "deploy: the course's files (gradekit_course) are in $(DEPLOY)"; exit 1; fi; \
	rm -f $(DEPLOY)/.installed-*; touch $(DEPLOY_STAMP); echo "deploy: $(DEPLOY)/venv"
	@$(MAKE) -s private-homes

# every home useradd makes from now on is its account's alone (Debian's useradd -m makes them 0755, and a
# classmate could read a notebook duplicated in it); the hub config gradekit hub-config writes makes a home
# 0700 again at each login and gives each server umask 077. Homes made before: chmod 0700 /home/*
private-homes:
	@if [ "$$(id -u)" = 0 ] && [ -f /etc/login.defs ] && ! grep -Eq '^HOME_MODE[[:space:]]+0?700$$' /etc/login.defs; then \
	  if grep -Eq '^#?HOME_MODE[[:space:]]' /etc/login.defs; then sed -Ei 's/^#?HOME_MODE[[:space:]].*/HOME_MODE 0700/' /etc/login.defs; \
	  else echo "HOME_MODE 0700" >> /etc/login.defs; fi; \
	  echo "deploy: HOME_MODE 0700 in /etc/login.defs (new homes are their account's alone)"; fi

# the linter and the type checker on gradekit/, the test suite, then every shipped assignment's own QA
test: setup lint deploy
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
	$(VENV)/bin/python bench/grade.py

clean:
	rm -rf $(VENV) submitted autograded feedback reports gradebook.db
