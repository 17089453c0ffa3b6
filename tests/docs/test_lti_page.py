"""docs/admin/lti.md shows what gradekit writes and its test LMS runs as the page says.

The login block the page shows is what ``gradekit hub-config --lti`` writes for the page's own
``gradekit lti platform`` command; its hub-config commands, for both hubs of one machine, are ones
gradekit parses; and "Try it first": the test LMS started as the page writes it prints a ``gradekit
lti platform`` command that registers it with a course, and its launch link goes to the hub's login.
(The hub itself, launched from it: tests/lti/test_one_account.py and tests/lti/test_lms_journey.py.)
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import hubs
import pytest
from conftest import CourseDir

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "admin" / "lti.md"


def _commands(prefix: str) -> list[str]:
    """The page's sh commands that start with ``prefix`` (continued lines joined)."""
    text = PAGE.read_text().replace("\\\n", " ")
    return [" ".join(c.split()) for c in re.findall(rf"^\s*({re.escape(prefix)}[^\n]*)$", text, re.M)]


def _platform_args(command: str):
    from gradekit.cli.main import build_parser

    argv = shlex.split(command)
    assert argv[0] == "gradekit", command
    return build_parser().parse_args(argv[1:])


def test_the_login_block_is_what_hub_config_writes():
    pytest.importorskip("jupyterhub")
    from gradekit.hub.config.logins import LTI
    from gradekit.hub.config.plan import Plan
    from gradekit.lti.platform import Platform

    (command,) = _commands("gradekit lti platform")
    a = _platform_args(command)
    platform = Platform(a.issuer, a.client_id, tuple(a.deployment), a.auth_url, a.token_url, a.jwks_url, a.hub_url,
                        a.username_claim)  # fmt: skip
    course = SimpleNamespace(course_id="transformers101", root=Path("/srv/courses/transformers101"))
    plan = Plan(course=course, assignments=["self_attention"], instructors=[], accounts=[],
                folder=Path("/srv/jupyterhub"), deploy=Path("/opt/gradekit"), gradekit=Path("/srv/gradekit"),
                login="lti", lti=platform, public_url=a.hub_url)  # fmt: skip
    (block,) = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    shown = "\n".join(line.strip() for line in block.splitlines())
    assert shown.strip() == "\n".join(LTI().python(plan))


def test_its_hub_config_commands_parse_for_both_shapes():
    from gradekit.cli.main import build_parser

    commands = _commands("gradekit hub-config")
    shapes = set()
    for command in commands:
        args = build_parser().parse_args(shlex.split(command)[1:])
        assert args.lti and args.write and args.public_url == "https://hub.example.edu/", command
        shapes.add(args.shape or "accounts")
    assert shapes == {"accounts", "one-account"}, commands


def test_the_test_lms_runs_as_the_page_says(tmp_path):
    (command,) = _commands(".venv/bin/python tests/lti/lms.py")
    (port,) = hubs.free_ports(1)
    argv = shlex.split(command)
    argv[argv.index("--port") + 1] = str(port)
    hub = argv[argv.index("--hub-url") + 1]
    proc = subprocess.Popen([sys.executable, *argv[1:]], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        printed = []
        while not printed or not printed[-1].startswith("the LMS's gradebook"):
            line = proc.stdout.readline()
            assert line, "the test LMS ended: " + "".join(printed)
            printed.append(line)
        (register,) = [line.strip() for line in printed if line.strip().startswith("gradekit lti platform")]
        course = CourseDir.create(tmp_path / "course", students=())
        assert course.cli(*shlex.split(register)[1:]) == 0
        assert f"launch as ada: http://127.0.0.1:{port}/launch?user=ada\n" in printed, printed

        class _Stay(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        with pytest.raises(urllib.error.HTTPError) as went:
            urllib.request.build_opener(_Stay).open(f"http://127.0.0.1:{port}/launch?user=ada", timeout=10)
        assert went.value.code == 302 and went.value.headers["Location"].startswith(hub + "hub/lti13/oauth_login?")
    finally:
        proc.terminate()
        proc.wait(10)
