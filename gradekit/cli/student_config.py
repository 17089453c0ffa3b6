"""``gradekit student-config [--dir DIR]``: the configuration every student's account needs, written out.

Students run nbgrader's own commands (and JupyterLab's Assignments tab, which
runs them), with gradekit's exchange classes: this file tells them the course,
where the exchange is, and which classes to use -- the filesystem exchange's, or,
with ``c.Gradekit.exchange = "hub"``, the hub exchange's (gradekit.exchange.hub.student)
and the service's URL. It holds nothing secret and no
path into the course directory. Put it where every student's nbgrader reads it:
``/etc/jupyter/nbgrader_config.py`` (every account of the machine), a folder on
students' ``JUPYTER_CONFIG_PATH`` (a hub can set that for students only), or each
student's ``~/.jupyter/nbgrader_config.py``.

``--dir DIR`` writes a whole Jupyter configuration folder for students -- put it
first on their ``JUPYTER_CONFIG_PATH`` (a hub's spawner can set it for students
alone, see the README's "Deploying on JupyterHub"):

    DIR/nbgrader_config.py                         the file above
    DIR/jupyter_server_config.d/gradekit.json      gradekit's Lab extension on (Validate: one line a
                                                   cell); nbgrader's formgrader and course list off
    DIR/labconfig/page_config.json                 the instructor's Lab panels (Formgrader, Create
                                                   Assignment, Course List) off and locked
"""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import course_of

DEFAULT_EXCHANGE = "/usr/local/share/nbgrader/exchange"  # nbgrader's own default
STUDENT_STEPS = {
    "fetch_assignment": "gradekit.exchange.filesystem.nbgrader.GradekitFetchAssignment",
    "submit": "gradekit.exchange.filesystem.nbgrader.GradekitSubmit",
    "list": "gradekit.exchange.filesystem.nbgrader.GradekitList",
    "fetch_feedback": "gradekit.exchange.filesystem.nbgrader.GradekitFetchFeedback",
}
HUB_STEPS = {  # c.Gradekit.exchange = "hub": the same commands, through the hub exchange service
    "fetch_assignment": "gradekit.exchange.hub.student.HubFetchAssignment",
    "submit": "gradekit.exchange.hub.student.HubSubmit",
    "list": "gradekit.exchange.hub.student.HubList",
    "fetch_feedback": "gradekit.exchange.hub.student.HubFetchFeedback",
}


INSTRUCTOR_PANELS = [
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
    "@jupyterlab/apputils-extension:announcements",
]
SERVER = {
    "ServerApp": {
        "jpserver_extensions": {
            "gradekit.handout.lab": True,
            "nbgrader.server_extensions.formgrader": False,
            "nbgrader.server_extensions.course_list": False,
            "jupyter_lsp": False,
        }
    }
}


def add_parser(sub) -> None:
    p = sub.add_parser("student-config", help="print the nbgrader_config.py students need (course, exchange, classes)")
    p.add_argument(
        "--dir",
        metavar="DIR",
        help="write a students' Jupyter config folder here instead (for "
        "JUPYTER_CONFIG_PATH): nbgrader_config.py, the server and Lab settings",
    )
    p.set_defaults(run=run)


def text(course, url: str | None = None) -> str:
    """The students' nbgrader_config.py for ``course`` (on the hub exchange, reaching it at ``url``: the
    course's own c.GradekitHubExchange.url unless given)."""
    head = [
        f"# nbgrader_config.py for the students of {course.course_id} (written by `gradekit student-config`).",
        "# Put it in /etc/jupyter/ (every account), a folder on JUPYTER_CONFIG_PATH, or ~/.jupyter/.",
        "c = get_config()  # noqa: F821",
        "",
        "# which course, so that fetch_assignment, submit and fetch_feedback need no --course",
        f"c.CourseDirectory.course_id = {course.course_id!r}",
    ]
    if str(getattr(course.settings, "exchange", "") or "filesystem") == "hub":
        from gradekit.errors import UsageError
        from gradekit.exchange.hub.course import settings_of

        url = url or str(settings_of(course).get("url") or "")
        if not url:
            raise UsageError(
                "c.Gradekit.exchange is 'hub' but c.GradekitHubExchange.url is not set: the URL students' "
                "servers reach the hub exchange at (e.g. https://hub.example.edu/services/gradekit-exchange/)"
            )
        lines = [
            *head,
            "# the hub exchange: each student fetches, hands in and reads feedback as their hub login (their",
            "# server's JUPYTERHUB_API_TOKEN); gradekit must be installed where the students' nbgrader runs",
            "# (its student side: a package, never the course directory)",
            f"c.GradekitHubExchange.url = {url!r}",
            *(f"c.ExchangeFactory.{step} = {cls!r}" for step, cls in HUB_STEPS.items()),
            "",
        ]
        return "\n".join(lines)
    from gradekit.exchange.filesystem.layout import exchange_root

    exchange = exchange_root(course)
    lines = [
        *head,
        "# where the course's exchange is",
        f"c.Exchange.root = {str(exchange)!r}",
        "# gradekit's exchange classes: each student fetches their own notebook and feedback, and hands in",
        "# as themselves (gradekit must be installed where the students' nbgrader runs: a package, never",
        "# the course directory)",
        *(f"c.ExchangeFactory.{step} = {cls!r}" for step, cls in STUDENT_STEPS.items()),
        "",
    ]
    return "\n".join(lines)


def settings_files(course, url: str | None = None) -> dict[str, tuple[str, str]]:
    """The students' Jupyter config folder's files: key -> (path in the folder, text)."""
    import json

    return {
        "nbgrader-config": ("nbgrader_config.py", text(course, url)),
        "server-config": ("jupyter_server_config.d/gradekit.json", json.dumps(SERVER, indent=1) + "\n"),
        "lab-config": (
            "labconfig/page_config.json",
            json.dumps(
                {
                    "disabledExtensions": {p: True for p in INSTRUCTOR_PANELS},
                    "lockedExtensions": {p: True for p in INSTRUCTOR_PANELS},
                },
                indent=1,
            )
            + "\n",
        ),
    }


def write_dir(course, folder: Path, url: str | None = None) -> list[Path]:
    """The students' Jupyter config folder (see the module's docstring); readable by every account."""
    import os

    files = {folder / path: content for path, content in settings_files(course, url).values()}
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o755)
        path.write_text(content)
        os.chmod(path, 0o644)
    os.chmod(folder, 0o755)
    return list(files)


def run(args) -> int:
    course = course_of(args)
    if args.dir:
        for path in write_dir(course, Path(args.dir)):
            print(path)
        return 0
    print(text(course), end="")
    return 0
