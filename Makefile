# Two commands do all the set-up on a fresh Debian machine:
#   make demo   -- the whole pipeline on a simulated class
#   make test   -- the test suite
VENV    := .venv
PYTHON  ?= python3
STAMP   := $(VENV)/.installed-stamp

# Python keeps the byte code it compiles (__pycache__/, which git ignores) even where the environment asks it
# not to (PYTHONDONTWRITEBYTECODE=1): the suite starts some 500 processes that import gradekit (its commands,
# services, fork servers, sandboxes, nbgrader's commands through gradekit's exchange classes), and each of its
# four workers collects every test module; without byte code every one of them compiles again what it imports
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup demo test suite check lint bench clean system-deps translations deploy course-env docs wheel private-homes

# jsonschema (under nbformat, nbgrader and Jupyter's servers) imports rfc3987-syntax when it is there, and
# that builds 35 lark parsers on import: 0.8 s of CPU in every process that reads a notebook or starts a
# Jupyter server (jupyter-server/jupyter_server#1559, python-jsonschema/jsonschema#1428). It arrives with
# jsonschema[format-nongpl], yet no schema of nbformat's, Jupyter's or gradekit's checks an IRI, and
# jsonschema leaves that format out without it: every venv make builds goes without it
SLOW_IMPORTS := rfc3987-syntax

# Every venv make builds first takes pip as constraints.txt pins it: the pip `python -m venv` brings (23.x on
# Python 3.11) weighs every file of every version the index lists against each of the platform's tags, one
# by one: 20 of the 30 s of CPU a venv of the course's ~140 packages took went there; pip 26 resolves the
# same pins in 2 (and the upgrade itself takes 1). $(call fill_venv,VENV,WHAT[,OPTIONS]): that pip and setuptools
# (constraints.txt says why), then WHAT as constraints.txt pins it (with pip's OPTIONS), then SLOW_IMPORTS out
pinned_pip = $(1)/bin/pip install -q --disable-pip-version-check -c "$(CURDIR)/constraints.txt" $(2) 2>&1 | grep -v "^WARNING: Location" || true
fill_venv = $(call pinned_pip,$(1),pip); $(call pinned_pip,$(1),setuptools $(3) $(2)); $(1)/bin/pip uninstall -q -y $(SLOW_IMPORTS)

# the gettext catalogs (gradekit/locale/*.po, source/*/locale/*.po) compiled to .mo beside them; the system
# packages (bubblewrap for the sandbox, among them) with them, though the venv itself may not wait for them
setup: $(STAMP) translations | system-deps

translations: $(STAMP)
	@$(VENV)/bin/python -m gradekit.i18n compile .

# bubblewrap: the sandbox for student code; postgresql: the server the
# shared-gradebook tests start on loopback (the tests skip without it);
# chromium-headless-shell: Debian's chromium built as its headless shell, the browser the tests drive through
# Playwright (never `playwright install`: its own browser download is not used). The same Chromium (156) as
# Debian's chromium package, without the desktop browser around it: Playwright runs headless on such a shell
# by its own choice too; the suite's browser tests cost a quarter less CPU on it (the hub journeys 167 s
# instead of 192, the page tests 68 instead of 90) and pass the same; fonts-noto-cjk:
# the pages' Chinese font; python3-venv: Debian's Python for the student deployment (below); nodejs and
# npm: JupyterHub's proxy (configurable-http-proxy, from npm, installed with the deployment); acl:
# getfacl/setfacl, to see (and the tests to set) who else may read a student's release. Without the packages
# these recommend: the browser's and the fonts' bring ~90 more (a printer dialog, avahi, udev, perl's web
# modules) that a headless browser never uses; 22 packages instead of 110, 10 s instead of 16 on a fresh machine
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	/usr/bin/python3 -c "import venv, ensurepip" >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	command -v setfacl >/dev/null 2>&1 || missing="$$missing acl"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	command -v chromium-headless-shell >/dev/null 2>&1 || missing="$$missing chromium-headless-shell"; \
	fc-list 2>/dev/null | grep -q "Noto Sans CJK" || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing system packages:$$missing (sudo apt-get install$$missing)"; \
	  fi; \
	fi

# pip byte-compiles nothing here: compiling every file of the ~140 packages took 17 of the venv's 39 s, on the
# longest path of make test's set-up (the students' deployment beside it takes 22 s). Each module is compiled
# as it is first imported instead, by the account that made the venv, and kept; the check that every part
# imports compiles what most processes import, and the sandbox's shell (a sandbox reads this venv read-only and
# could keep nothing it compiled). The deployment, which students' accounts import, is compiled whole
# The venv waits for the system packages only where $(PYTHON) cannot make one without them (Debian's own
# python3 needs python3-venv): elsewhere pip fills it while apt-get installs the browser and the rest
VENV_NEEDS := $(shell $(PYTHON) -c "import venv, ensurepip" >/dev/null 2>&1 || echo system-deps)
$(STAMP): pyproject.toml constraints.txt | $(VENV_NEEDS)
	$(PYTHON) -m venv $(VENV)
	$(call fill_venv,$(VENV),-e ".[test]",--no-compile)
	$(VENV)/bin/python -c "import gradekit, nbgrader, numpy, IPython, pytest, hypothesis, xdist, dask.distributed, sklearn, psycopg, jupyterhub, playwright, sphinx, furo, myst_parser, sphinxarg; \
	  IPython.core.interactiveshell.InteractiveShell.instance().run_cell('import numpy as np', store_history=False)" >/dev/null
	$(VENV)/bin/ruff --version >/dev/null && $(VENV)/bin/mypy --version >/dev/null
	touch $@

demo: setup
	$(VENV)/bin/gradekit demo

# gradekit's wheel alone (no course: pyproject.toml packages gradekit/ and nothing else), built from a clean
# copy of the sources so that no build/ or egg-info lands in the checkout
WHEEL := dist/gradekit-0.1.0-py3-none-any.whl
wheel: $(WHEEL)
$(WHEEL): pyproject.toml README.md $(shell find gradekit -type f -not -path '*/__pycache__/*' -not -name '*.mo')
	@set -e; tmp=$$(mktemp -d); cp -r pyproject.toml README.md gradekit $$tmp/; \
	find $$tmp -name __pycache__ -prune -exec rm -rf {} +; \
	$(PYTHON) -m pip wheel -q --disable-pip-version-check --no-deps -w $$tmp/dist $$tmp 2>&1 | grep -v "^WARNING: Location" || true; \
	mkdir -p dist; mv $$tmp/dist/gradekit-*.whl $(WHEEL); rm -rf $$tmp; echo "wheel: $(WHEEL)"

# The deployment students run, apart from the course: gradekit's wheel with its student side only (the
# exchange's client classes and the Lab extension, JupyterHub's single-user server, JupyterLab and
# Notebook 7: `gradekit[student,hub]`; and the hub's LTI login, `lti-login`) on Debian's Python, in a folder every account may enter, and
# JupyterHub's proxy from npm. None of the grading extras (Dask, psycopg, scikit-learn, scipy), no test
# tools (playwright, ruff, mypy), no course files; it needs no `make setup`. When only gradekit/ changed,
# the wheel alone is reinstalled (seconds); when pyproject.toml or constraints.txt changed, the venv is
# made anew, so nothing an older list installed stays. The tests' real Unix students run it; as another
# user than root it is skipped (and so are those tests).
DEPLOY  ?= /opt/gradekit
DEPLOY_EXTRAS := student,hub,lti-login
DEPLOY_DEPS  := $(DEPLOY)/.deps-$(shell (echo $(DEPLOY_EXTRAS) $(SLOW_IMPORTS); cat pyproject.toml constraints.txt) | sha256sum | cut -c1-12)
DEPLOY_STAMP := $(DEPLOY)/.installed-$(shell find Makefile pyproject.toml constraints.txt gradekit -type f -not -path '*/__pycache__/*' -not -name '*.mo' 2>/dev/null | sort | xargs cat | sha256sum | cut -c1-12)
NOT_FOR_STUDENTS := sklearn scipy dask distributed vl_convert psycopg playwright ruff mypy sphinx
deploy: $(WHEEL) | system-deps
	@if [ "$$(id -u)" != 0 ]; then echo "deploy: skipped (the student deployment in $(DEPLOY) is built as root)"; exit 0; fi; \
	if [ -f $(DEPLOY_STAMP) ]; then echo "deploy: $(DEPLOY)/venv (up to date)"; exit 0; fi; \
	set -e; umask 022; mkdir -p $(DEPLOY); \
	if [ ! -f $(DEPLOY_DEPS) ]; then \
	  rm -rf $(DEPLOY)/venv $(DEPLOY)/.deps-* $(DEPLOY)/.installed-*; /usr/bin/python3 -m venv $(DEPLOY)/venv; \
	  $(call fill_venv,$(DEPLOY)/venv,"$(CURDIR)/$(WHEEL)[$(DEPLOY_EXTRAS)]"); \
	else \
	  $(DEPLOY)/venv/bin/pip install -q --disable-pip-version-check --no-deps --force-reinstall "$(CURDIR)/$(WHEEL)" \
	    2>&1 | grep -v "^WARNING: Location" || true; \
	fi; \
	test -x $(DEPLOY)/node_modules/.bin/configurable-http-proxy || \
	  npm install -s --prefix $(DEPLOY) --no-audit --no-fund configurable-http-proxy@5.3.0 >/dev/null; \
	$(DEPLOY)/venv/bin/python -I -c "import gradekit.exchange.filesystem.student, gradekit.handout.lab, jupyterhub, jupyterlab, notebook, nbgrader"; \
	$(DEPLOY)/venv/bin/python -I -c "import importlib.util as u, sys; found = [m for m in sys.argv[1:] if u.find_spec(m)]; \
	  sys.exit(f'deploy: not for students, yet in $(DEPLOY): {found}' if found else 0)" $(NOT_FOR_STUDENTS); \
	rm -f $(DEPLOY)/.installed-*; touch $(DEPLOY_DEPS) $(DEPLOY_STAMP); echo "deploy: $(DEPLOY)/venv"
	@$(MAKE) -s private-homes

# The course's own environment, for its instructors and for the services its hub runs (gradekit serve,
# grade, report, hub-exchange): gradekit's wheel with the extras a course uses (COURSE_EXTRAS: the hub's
# services, free-text groups, a gradebook on PostgreSQL) and nbgrader (a requirement of gradekit's), on the
# Python make runs. No test tools (playwright, ruff, mypy, sphinx: make setup's, for gradekit's developers),
# no course files. As deploy: the venv is made anew when pyproject.toml, constraints.txt or the extras
# changed, and only the wheel is reinstalled when only gradekit/ did. A .venv that make setup made is left
# alone (give another COURSE_VENV). Any account may build it (the instructor's own, or root).
COURSE_VENV   ?= .venv
COURSE_EXTRAS ?= hub,groups,postgres
COURSE_DEPS   := $(COURSE_VENV)/.course-deps-$(shell (echo $(COURSE_EXTRAS) $(SLOW_IMPORTS); cat pyproject.toml constraints.txt) | sha256sum | cut -c1-12)
COURSE_STAMP  := $(COURSE_VENV)/.course-installed-$(shell find Makefile pyproject.toml constraints.txt gradekit -type f -not -path '*/__pycache__/*' -not -name '*.mo' 2>/dev/null | sort | xargs cat | sha256sum | cut -c1-12)
NOT_FOR_A_COURSE := playwright ruff mypy sphinx
course-env: $(WHEEL)
	@if [ -f $(COURSE_VENV)/.installed-stamp ]; then \
	  echo "course-env: $(COURSE_VENV) is make setup's (gradekit's developers', with the test tools): give another COURSE_VENV=DIR"; \
	  exit 1; \
	fi; \
	if [ -f $(COURSE_STAMP) ]; then exit 0; fi; \
	set -e; \
	if [ ! -f $(COURSE_DEPS) ]; then \
	  rm -rf $(COURSE_VENV); $(PYTHON) -m venv $(COURSE_VENV); \
	  $(call fill_venv,$(COURSE_VENV),"$(CURDIR)/$(WHEEL)[$(COURSE_EXTRAS)]"); \
	else \
	  $(COURSE_VENV)/bin/pip install -q --disable-pip-version-check --no-deps --force-reinstall "$(CURDIR)/$(WHEEL)" \
	    2>&1 | grep -v "^WARNING: Location" || true; \
	fi; \
	$(COURSE_VENV)/bin/python -I -c "import gradekit.cli.main, nbgrader"; \
	$(COURSE_VENV)/bin/python -I -c "import importlib.util as u, sys; found = [m for m in sys.argv[1:] if u.find_spec(m)]; \
	  sys.exit(f'course-env: test tools, yet in $(COURSE_VENV): {found}' if found else 0)" $(NOT_FOR_A_COURSE); \
	rm -f $(COURSE_VENV)/.course-installed-*; touch $(COURSE_DEPS) $(COURSE_STAMP); \
	echo "course-env: $(COURSE_VENV)/bin/gradekit (gradekit[$(COURSE_EXTRAS)], nbgrader)"

# every home useradd makes from now on is its account's alone (Debian's useradd -m makes them 0755, and a
# classmate could read a notebook duplicated in it); the hub config gradekit hub-config writes makes a home
# 0700 again at each login and gives each server umask 077. Homes made before: chmod 0700 each of the course's
# accounts' homes, as docs/admin/jupyterhub.md does from the roster (never every home of a shared machine)
private-homes:
	@if [ "$$(id -u)" = 0 ] && [ -f /etc/login.defs ] && ! grep -Eq '^HOME_MODE[[:space:]]+0?700$$' /etc/login.defs; then \
	  if grep -Eq '^#?HOME_MODE[[:space:]]' /etc/login.defs; then sed -Ei 's/^#?HOME_MODE[[:space:]].*/HOME_MODE 0700/' /etc/login.defs; \
	  else echo "HOME_MODE 0700" >> /etc/login.defs; fi; \
	  echo "deploy: HOME_MODE 0700 in /etc/login.defs (new homes are their account's alone)"; fi

# the docs site (docs/ -> docs/_build/html), warnings as errors: a broken reference, a page in no
# toctree, a stale generated reference all fail the build
docs: $(STAMP)
	$(BESIDE) $(VENV)/bin/sphinx-build -q -W --keep-going -b html -d docs/_build/doctrees docs docs/_build/html

# the linter and the type checker on gradekit/, the docs, the test suite (every shipped assignment's own QA
# through gradekit check among its tests: tests/qa/test_run.py, as make check runs it):
# side by side (make -j), since the suite waits on processes (hubs, browsers, services) more than it computes;
# each line of their output whole. The suite runs in TEST_WORKERS pytest-xdist workers: the tests
# of a module that share a module-scoped fixture run on one (tests/conftest.py), slowest groups first; its
# real-user tests run the deployment DEPLOY that make deploy built. Four workers on CI's two cores: the suite
# and every process it starts (hubs, browsers, sandboxes, nbgrader's ~185 commands) compute about 15 minutes of
# CPU (890 to 940 s by process accounting; the same commands cost up to 15% more at one hour than at another
# on a shared machine: nbgrader's alone 157 to 180 s), lint and docs about 25 s more, so two busy cores are
# its floor: four keep them ~95% busy while some wait on hubs and browsers; more only crowd the sandboxes'
# deadlines (six did, on a loaded machine)
TEST_WORKERS ?= 4
PYTEST_ARGS  ?=
# one graph, four jobs: apt-get (the system packages), pip filling make setup's venv and building the wheel
# start at once; the students' deployment once apt-get is done; lint and docs as soon as the venv is
# there, the suite once the deployment is too. Lint and docs (mypy and Sphinx: ~25 s of CPU, no deadline of
# their own) run niced (BESIDE): they take the CPU the suite leaves while its tests wait on hubs and browsers,
# not the CPU of the tests whose sandboxes and services keep time
BESIDE ?=
test:
	@$(MAKE) --no-print-directory -j4 -Oline lint docs suite BESIDE="nice -n 10"

suite: $(STAMP) translations wheel deploy
	GRADEKIT_DEPLOY=$(DEPLOY) $(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=20 $(PYTEST_ARGS) tests

# every shipped assignment's QA set through gradekit check, as its instructor runs it: the first simulated student
# hands in each file alone, the second the mistakes packed; the suite grades the same sets on more variants
# (tests/course: the first assignment's on 10, the others' on 3; tests/graders: the uncatalogued sets on 10), so
# here two students are enough: five cost 42 s of CPU, two 16 s. make test runs the same commands among its
# tests (tests/qa/test_run.py), where self_attention's was already run once more
CHECK_STUDENTS ?= 2
check: $(STAMP) translations | system-deps
	@for a in $$(ls source); do $(VENV)/bin/gradekit check $$a --students $(CHECK_STUDENTS) || exit 1; done

# ruff (lint and format) and mypy, configured in pyproject.toml
lint: $(STAMP)
	$(BESIDE) $(VENV)/bin/ruff check gradekit
	$(BESIDE) $(VENV)/bin/ruff format --check gradekit
	$(BESIDE) $(VENV)/bin/mypy

# side by side with nbgrader (ratio, floor), then class sizes 10/100/1000 (time, generate, peak memory),
# then copy detection: precision, recall and time on synthetic classes of 212 and 1,000; then a deadline
# rush through the hub exchange (its proxy from the student deployment: make deploy, as root)
bench: setup deploy
	$(VENV)/bin/python bench/run.py
	$(VENV)/bin/python bench/run.py --sizes 10,100,1000
	$(VENV)/bin/python bench/report.py --sizes 100,1000
	$(VENV)/bin/python bench/integrity.py
	$(VENV)/bin/python bench/grade.py
	$(VENV)/bin/python bench/hub.py --deploy $(DEPLOY)
	$(VENV)/bin/python bench/lti.py

clean:
	rm -rf $(VENV) submitted autograded feedback reports gradebook.db dist docs/_build
