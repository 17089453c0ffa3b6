"""The docs site's pages: every page there is, and the tutorial's commands run as written.

The site itself is built with warnings as errors by ``make docs`` (in ``make test``). Here, every
``console`` block of docs/tutorial.md is run in a new directory, its commands (``$ ...``) one by
one, and what they print must match the lines shown: ``...`` alone on a line stands for any lines,
within a line for any text.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import VENV_BIN

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = """index tutorial guides/writing-an-assignment guides/grader-api guides/mistakes guides/languages
guides/live-grading guides/manual-grading guides/class-report guides/copy-detection admin/jupyterhub admin/one-account
admin/kubernetes-docker admin/lti admin/lti-canvas admin/lti-moodle admin/lti-brightspace admin/lti-blackboard
admin/postgresql admin/cluster admin/threat-model reference/cli reference/configuration
reference/graders reference/hub-exchange students students.zh performance architecture""".split()


def test_every_page_exists_with_one_title():
    for page in PAGES:
        text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
        outside_code = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        titles = re.findall(r"^# ", outside_code, flags=re.M)
        assert text.startswith("# ") and len(titles) == 1, page


def test_the_readme_stays_short():
    """What it is and for whom, the two commands, a quick start and links: the rest is on the docs site."""
    lines = (DOCS.parent / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: move what is past 150 into its page in docs/"


def test_images_are_in_their_folder_and_every_link_resolves():
    assert not list(DOCS.glob("*.jpg")) and list((DOCS / "images").glob("*.jpg"))
    for page in [DOCS.parent / "README.md", *DOCS.rglob("*.md")]:
        if "_build" in page.parts:
            continue
        for target in re.findall(r"\]\(([^)#:]+\.(?:md|jpg|png))(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), (page.name, target)


def blocks(page: Path) -> list[tuple[str, str]]:
    """The (command, expected output) pairs of a page's console blocks, in order."""
    pairs: list[tuple[str, str]] = []
    for block in re.findall(r"^```console\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], ""))
            else:
                command, shown = pairs[-1]
                pairs[-1] = (command, shown + line + "\n")
    return pairs


def matches(shown: str, printed: str) -> bool:
    pattern = ""
    for line in shown.splitlines():
        if line == "...":
            pattern += r"(?:.*\n)*?"
        else:
            pattern += ".*".join(re.escape(part) for part in line.rstrip().split("...")) + r"\n"
    text = "".join(line.rstrip() + "\n" for line in printed.splitlines() if line.strip())
    return re.fullmatch(pattern, text) is not None


def test_the_matcher():
    assert matches("a\n...\nz\n", "a\nb\nc\nz\n") and matches("a ... z\n", "a 1 2 z\n")
    assert not matches("a\nz\n", "a\nb\nz\n") and not matches("a 1\n", "a 2\n")


@pytest.mark.slow
def test_the_tutorial_runs_as_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRADEKIT_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}", COLUMNS="100")
    cwd = tmp_path
    pairs = blocks(DOCS / "tutorial.md")
    assert len(pairs) >= 10
    for command, shown in pairs:
        if command.startswith("cd "):
            cwd = cwd / command[3:]
            continue
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        printed = proc.stdout + proc.stderr
        assert matches(shown, printed), f"$ {command}\n--- the tutorial shows:\n{shown}--- it printed:\n{printed}"
    # the course the tutorial made, put in git: nothing but the course's public files is there to add
    # (the answer keys in key/, the hand-ins, the gradebook, the secret, the pages are ignored)
    subprocess.run(["git", "init", "-q"], cwd=cwd, check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=cwd,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    untracked = sorted(line[3:] for line in status if line.startswith("?? "))
    ignored = [line[3:] for line in status if line.startswith("!! ")]
    assert untracked == [".gitignore", "nbgrader_config.py", "source/week1/assignment.toml",
                         "source/week1/params.py", "source/week1/week1.ipynb"], untracked
    for private in ("key/bob/week1.ipynb", "submitted/bob/week1/week1.ipynb", "autograded/bob/week1/week1.ipynb",
                    "feedback/bob/week1/week1.html", "release/chen/week1/week1.ipynb", "reports/week1/index.html",
                    ".gradekit/secret", "gradebook.db", "roster.csv", "solutions/week1/reference.py",
                    "autograder/week1/test_standardize.py"):
        assert private in ignored, (private, status)


def test_a_copy_of_docs_alone_says_in_one_line_what_it_lacks(tmp_path):
    """architecture.md's layer table is read from tests/test_layout.py: built from docs/ without the
    repository beside it, the build fails with one line saying so (it crashed with a traceback)."""
    import shutil
    import sys

    copy = tmp_path / "docs"
    copy.mkdir()
    for name in ("conf.py", "index.md", "architecture.md"):
        shutil.copy2(DOCS / name, copy / name)
    shutil.copytree(DOCS / "_ext", copy / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(copy),
                           str(tmp_path / "html")], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "test_layout.py" in line]
    assert len(said) == 1 and "architecture.md" in said[0] and "ERROR: gradekit-layers" in said[0], proc.stderr


def test_each_reference_page_reads_as_markdown_before_its_generated_list():
    """docs/reference/*.md are generated lists: read as Markdown (on a forge, in an editor), each opens with
    what it lists and where the built page is, before the first directive."""
    for page in ("cli", "configuration", "graders"):
        text = (DOCS / "reference" / f"{page}.md").read_text(encoding="utf-8")
        opening = text.split("```{", 1)[0]
        assert f"_build/html/reference/{page}.html" in opening, page
        assert len(opening.split()) > 40, page
