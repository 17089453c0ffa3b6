"""The Jupyter settings every student's server needs: the course, where its exchange is, which classes.

``settings_files`` gives the folder a students' server reads (``gradekit student-config --dir``,
and ``gradekit hub-config``'s students/ and instructors/): nbgrader_config.py (``text``), gradekit's
Lab extension on and nbgrader's instructor parts off, a terminal that keeps the server's PATH, the
instructor's Lab panels locked away.
Nothing secret, no path into the course directory.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_EXCHANGE = "/usr/local/share/nbgrader/exchange"  # nbgrader's own default
STUDENT_STEPS = {
    "fetch_assignment": "gradekit.exchange.filesystem.student.GradekitFetchAssignment",
    "submit": "gradekit.exchange.filesystem.student.GradekitSubmit",
    "list": "gradekit.exchange.filesystem.student.GradekitList",
    "fetch_feedback": "gradekit.exchange.filesystem.student.GradekitFetchFeedback",
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
# the server's own settings (jupyter_server_config.d/ above only switches extensions on and off): a terminal's
# shell keeps the server's PATH, the students' venv first (its nbgrader and python); the login shell Jupyter
# runs by default takes /etc/profile's instead, where nbgrader is not
SETTINGS = {"ServerApp": {"terminado_settings": {"shell_command": ["/bin/bash"]}}}


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
        "server-settings": ("jupyter_server_config.json", json.dumps(SETTINGS, indent=1) + "\n"),
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
