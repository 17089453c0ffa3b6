"""What the package ships: gradekit/ alone as a wheel, its extras, and a student side that imports none of them.

The last test is an instructor's first five minutes, from the built wheel in a fresh virtual
environment: ``gradekit quickstart DIR``, then ``gradekit check`` on its assignment, then each
command whose extra is not installed, which says so in one line. The venv is made in a second,
offline: ``venv --without-pip``, the wheel installed by this venv's pip with ``--no-deps
--no-index``, and beside it hard links to exactly the distributions the wheel's default
requirements need (their closure, read from their metadata), so that an import the default install
does not declare fails here as it would for an instructor.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from setuptools import find_packages

REPO = Path(__file__).resolve().parents[1]
# what no student's server may import: the grading extras, the report's old V8 renderer, the test tools
# what every venv make builds goes without (the Makefile's SLOW_IMPORTS: a dependency's optional extra that costs
# every process start-up); a closure reaching one through an extra leaves it out too
SLOW_IMPORTS = re.search(r"^SLOW_IMPORTS := (.*)$", (REPO / "Makefile").read_text(), re.M).group(1).split()
NOT_FOR_STUDENTS = ("sklearn", "scipy", "dask", "distributed", "vl_convert", "psycopg", "playwright")
STUDENT_SIDE = ("gradekit.exchange.filesystem.student", "gradekit.exchange.filesystem.collect", "gradekit.handout.lab",
                "gradekit.exchange.hub.student", "gradekit.exchange.hub.wire")  # the hub exchange's client classes too


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def test_every_gradekit_package_is_listed_and_nothing_else():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = set(find_packages(str(REPO), include=["gradekit", "gradekit.*"]))
    assert found - listed == set(), f"pyproject.toml's packages miss {sorted(found - listed)}"
    assert listed - found == set(), f"pyproject.toml lists what is no gradekit package: {sorted(listed - found)}"


def test_the_optional_parts_are_extras_not_requirements():
    project = _pyproject()["project"]
    required = {Requirement(r).name for r in project["dependencies"]}
    assert not required & {"dask", "psycopg", "scikit-learn", "scipy", "vl-convert-python", "playwright",
                           "jupyterhub", "tornado", "ruff", "mypy", "sphinx"}
    extras = {name: {Requirement(r).name for r in reqs} for name, reqs in project["optional-dependencies"].items()}
    assert extras["cluster"] == {"dask"} and extras["postgres"] == {"psycopg"}
    assert extras["groups"] == {"scikit-learn", "scipy"} and "jupyterhub" in extras["hub"]
    assert not extras["student"] & {"dask", "psycopg", "scikit-learn", "scipy", "playwright"}
    from gradekit.extras import EXTRAS

    assert set(EXTRAS) <= set(extras), "every extra gradekit.extras names is declared in pyproject.toml"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """gradekit's wheel, built offline from a copy of the sources (no build/ or egg-info in the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(REPO / "gradekit", src / "gradekit", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-w", str(tmp / "dist"), str(src)],
                   check=True, capture_output=True, text=True)
    (found,) = (tmp / "dist").glob("gradekit-*.whl")
    return found


def test_the_wheel_holds_gradekit_alone(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"gradekit", "gradekit-0.1.0.dist-info"}, tops
    assert not [n for n in names if re.search(r"(^|/)(solutions|autograder|source)/", n) and "skeleton" not in n]
    for needed in ("gradekit/authoring/skeleton/source/__ASSIGNMENT__/__ASSIGNMENT__.ipynb.tmpl",
                   "gradekit/authoring/course_skeleton/nbgrader_config.py.tmpl",
                   "gradekit/authoring/course_skeleton/gitignore.tmpl",
                   "gradekit/pages/templates/report.html", "gradekit/locale/zh.po"):
        assert needed in names, needed
    assert {"cluster", "postgres", "groups", "hub", "student", "all", "test"} <= set(meta.get_all("Provides-Extra"))


def test_the_student_side_imports_no_grading_extra():
    """Traced in this venv, where every extra is installed: importing is what costs a server."""
    probe = (f"import sys\nfor m in {STUDENT_SIDE!r}: __import__(m)\n"
             "from gradekit.handout.lab import _jupyter_server_extension_points\n_jupyter_server_extension_points()\n"
             f"print(sorted({{n.split('.')[0] for n in sys.modules}} & set({NOT_FOR_STUDENTS!r})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def _closure(requirements: list[str]) -> list[metadata.Distribution]:
    """The installed distributions these requirements need, at any depth (markers evaluated, and a
    requirement's own extras followed)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker and not req.marker.evaluate({"extra": extra}):
            continue
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if extra and name in SLOW_IMPORTS:
            continue
        dist = metadata.distribution(req.name)
        key = f"{name}{sorted(req.extras)}"
        if key in seen:
            continue
        seen[key] = dist
        for wanted in ["", *req.extras]:
            for r in dist.requires or []:
                need = Requirement(r)
                if bool(need.marker and "extra" in str(need.marker)) == bool(wanted):
                    todo.append((need, wanted))
    return list({d.metadata["Name"]: d for d in seen.values()}.values())


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


@pytest.fixture(scope="module")
def fresh(wheel, tmp_path_factory) -> Path:
    """A new venv holding the wheel and exactly its default requirements' closure; its bin/."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    with zipfile.ZipFile(wheel) as z:
        meta = email.message_from_bytes(z.read("gradekit-0.1.0.dist-info/METADATA"))
    needs = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    for dist in _closure(needs):
        root = Path(dist.locate_file(""))
        for file in dist.files or []:
            path = Path(file)
            if path.parts[0] == ".." or (path.suffix == ".pyc" and not (root / path).exists()):
                continue   # their byte code too, as pip compiled it: without it each command compiled its imports
            _link(root / path, site / path)
        for script in (ep for ep in dist.entry_points if ep.group == "console_scripts"):
            module, _, attr = script.value.partition(":")
            bin_ = venv / "bin" / script.name
            bin_.write_text(f"#!{venv}/bin/python\nimport sys\nfrom {module} import {attr.split('.')[0]}\n"
                            f"sys.exit({attr}())\n")
            bin_.chmod(0o755)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)], check=True)
    check = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return venv / "bin"


def _run(bin_: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_}{os.pathsep}/usr/bin:/bin"
    return subprocess.run([str(bin_ / "gradekit"), *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_from_the_wheel_alone_a_quickstart_course_passes_check(fresh, tmp_path):
    missing = subprocess.run([str(fresh / "python"), "-c", "import importlib.util as u, sys; "
                              f"print([m for m in {NOT_FOR_STUDENTS!r} if u.find_spec(m)])"],
                             capture_output=True, text=True, check=True)
    assert missing.stdout.strip() == "[]", missing.stdout     # the venv is honest: no extra in it
    made = _run(fresh, "quickstart", "course", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    course = tmp_path / "course"
    assert "gradekit check week1" in made.stdout
    ignored = (course / ".gitignore").read_text().split()
    for private in ("/solutions/", "/autograder/", "/.gradekit/", "/gradebook.db", "/submitted/"):
        assert private in ignored
    checked = _run(fresh, "check", "week1", "--students", "3", cwd=course)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr
    assert "every check passed" in checked.stdout
    generated = _run(fresh, "generate", "week1", cwd=course)
    assert generated.returncode == 0, generated.stderr
    assert sorted(p.name for p in (course / "release").iterdir()) == ["alice", "bob", "chen"]


@pytest.mark.slow
def test_a_missing_extra_is_one_line_that_names_it(fresh, tmp_path):
    made = _run(fresh, "quickstart", "course", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    course = tmp_path / "course"
    tries = {
        "groups": ["groups", "week1", "q1"],
        "cluster": ["autograde", "week1", "--scheduler", "tcp://127.0.0.1:9"],
    }
    for extra, argv in tries.items():
        proc = _run(fresh, *argv, cwd=course)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 3 and len(lines) == 1, (extra, proc.stderr)
        assert f'pip install "gradekit[{extra}]"' in lines[0] and "Traceback" not in proc.stderr
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text().replace('"sqlite:///gradebook.db"', '"postgresql://grader@127.0.0.1:9/x"'))
    proc = _run(fresh, "generate", "week1", cwd=course)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 3 and len(lines) == 1 and 'pip install "gradekit[postgres]"' in lines[0], proc.stderr


def test_the_students_deployment_carries_no_grading_extra():
    """`make deploy`'s venv (GRADEKIT_DEPLOY, else /opt/gradekit): the student side and nothing heavier."""
    from unix_users import DEPLOY

    python = DEPLOY / "venv" / "bin" / "python"
    if not python.exists():
        pytest.skip(f"no student deployment in {DEPLOY} (make deploy DEPLOY={DEPLOY}, as root)")
    probe = ("import importlib.util as u, importlib.metadata as m\n"
             f"print([x for x in {(*NOT_FOR_STUDENTS, 'ruff', 'mypy', 'sphinx')!r} if u.find_spec(x)])\n"
             "print(sorted({f.split('/')[0] for f in map(str, m.distribution('gradekit').files) if '/' in f and f[:3] != '../'}))")
    found, tops = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True,
                                 check=True, cwd="/").stdout.splitlines()
    assert found == "[]", found
    assert set(eval(tops)) == {"gradekit", "gradekit-0.1.0.dist-info"}, tops     # no course files
    subprocess.run([str(python), "-I", "-c", "import " + ", ".join(STUDENT_SIDE) + ", jupyterhub, jupyterlab, notebook"],
                   check=True, cwd="/")


@pytest.mark.slow
def test_the_courses_environment_carries_gradekit_and_nbgrader_and_no_test_tool(tmp_path):
    """`make course-env`: the venv the instructors and the hub's services run -- gradekit from its wheel with
    the course's extras, nbgrader -- and none of the test tools; made again, it is left as it is; and a
    .venv that `make setup` made is refused, not replaced."""
    if os.geteuid() != 0:
        pytest.skip("built as root here (CI is root): it installs a venv from the pip cache")
    venv = tmp_path / "course-venv"
    # pip byte-compiles nothing here (PIP_COMPILE=false): a third of the build's CPU, and no assertion reads a .pyc
    made = subprocess.run(["make", "-s", "course-env", f"COURSE_VENV={venv}"], cwd=REPO, capture_output=True,
                          text=True, timeout=900, env={**os.environ, "PIP_COMPILE": "false"})
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.strip().endswith(f"course-env: {venv}/bin/gradekit (gradekit[hub,groups,postgres], nbgrader)")
    python = venv / "bin" / "python"
    probe = ("import importlib.util as u, importlib.metadata as m\n"
             "print([x for x in ('playwright', 'ruff', 'mypy', 'sphinx', 'furo', 'myst_parser') if u.find_spec(x)])\n"
             "print(sorted(x for x in ('gradekit', 'nbgrader', 'jupyterhub', 'sklearn', 'psycopg') if u.find_spec(x)))\n"
             "print(sorted({f.split('/')[0] for f in map(str, m.distribution('gradekit').files) if '/' in f and f[:3] != '../'}))")
    tools, parts, tops = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True,
                                        check=True, cwd="/").stdout.splitlines()
    assert tools == "[]", tools
    assert parts == str(sorted(("gradekit", "nbgrader", "jupyterhub", "sklearn", "psycopg"))), parts
    assert set(eval(tops)) == {"gradekit", "gradekit-0.1.0.dist-info"}, tops     # no course files
    for command in ("gradekit", "nbgrader"):
        assert subprocess.run([str(venv / "bin" / command), "--help"], capture_output=True, cwd="/").returncode == 0
    again = subprocess.run(["make", "-s", "course-env", f"COURSE_VENV={venv}"], cwd=REPO, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0 and again.stdout == "", again.stdout + again.stderr   # up to date: nothing done
    refused = subprocess.run(["make", "-s", "course-env", f"COURSE_VENV={REPO / '.venv'}"], cwd=REPO,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "is make setup's" in refused.stdout, refused.stdout + refused.stderr
    assert (REPO / ".venv" / ".installed-stamp").exists()
