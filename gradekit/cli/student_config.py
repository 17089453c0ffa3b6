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
    DIR/jupyter_server_config.json                 a terminal's shell keeps the server's PATH (nbgrader)
    DIR/labconfig/page_config.json                 the instructor's Lab panels (Formgrader, Create
                                                   Assignment, Course List) off and locked
"""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import course_of
from gradekit.handout.students import HUB_STEPS, STUDENT_STEPS, text, write_dir

__all__ = ["HUB_STEPS", "STUDENT_STEPS", "add_parser", "run", "text", "write_dir"]


def add_parser(sub) -> None:
    p = sub.add_parser("student-config", help="print the nbgrader_config.py students need (course, exchange, classes)")
    p.add_argument(
        "--dir",
        metavar="DIR",
        help="write a students' Jupyter config folder here instead (for "
        "JUPYTER_CONFIG_PATH): nbgrader_config.py, the server and Lab settings",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    course = course_of(args)
    if args.dir:
        for path in write_dir(course, Path(args.dir)):
            print(path)
        return 0
    print(text(course), end="")
    return 0
