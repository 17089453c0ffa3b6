"""``gradekit student-config``: the nbgrader_config.py every student's account needs, written out.

Students run nbgrader's own commands (and JupyterLab's Assignments tab, which
runs them), with gradekit's exchange classes: this file tells them the course,
where the exchange is, and which classes to use. It holds nothing secret and no
path into the course directory. Put it where every student's nbgrader reads it:
``/etc/jupyter/nbgrader_config.py`` (every account of the machine), a folder on
students' ``JUPYTER_CONFIG_PATH`` (a hub can set that for students only), or each
student's ``~/.jupyter/nbgrader_config.py``.
"""

from __future__ import annotations

from gradekit.cli.common import course_of

DEFAULT_EXCHANGE = "/usr/local/share/nbgrader/exchange"  # nbgrader's own default
STUDENT_STEPS = {
    "fetch_assignment": "gradekit.handout.exchange.GradekitFetchAssignment",
    "submit": "gradekit.handout.exchange.GradekitSubmit",
    "list": "gradekit.handout.exchange.GradekitList",
    "fetch_feedback": "gradekit.handout.exchange.GradekitFetchFeedback",
}


def add_parser(sub) -> None:
    p = sub.add_parser("student-config", help="print the nbgrader_config.py students need (course, exchange, classes)")
    p.set_defaults(run=run)


def text(course) -> str:
    """The students' nbgrader_config.py for ``course``."""
    from gradekit.handout.layout import exchange_root

    exchange = exchange_root(course)
    lines = [
        f"# nbgrader_config.py for the students of {course.course_id} (written by `gradekit student-config`).",
        "# Put it in /etc/jupyter/ (every account), a folder on JUPYTER_CONFIG_PATH, or ~/.jupyter/.",
        "c = get_config()  # noqa: F821",
        "",
        "# which course, so that fetch_assignment, submit and fetch_feedback need no --course",
        f"c.CourseDirectory.course_id = {course.course_id!r}",
        "# where the course's exchange is",
        f"c.Exchange.root = {str(exchange)!r}",
        "# gradekit's exchange classes: each student fetches their own notebook and feedback, and hands in",
        "# as themselves (gradekit must be installed where the students' nbgrader runs: a package, never",
        "# the course directory)",
        *(f"c.ExchangeFactory.{step} = {cls!r}" for step, cls in STUDENT_STEPS.items()),
        "",
    ]
    return "\n".join(lines)


def run(args) -> int:
    print(text(course_of(args)), end="")
    return 0
