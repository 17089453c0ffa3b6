"""What gradekit adds to a student's JupyterLab (a Jupyter server extension): Validate in one line a cell.

nbgrader's Validate button runs the notebook and shows, for every failed cell,
its source and the error's whole traceback -- on a notebook just fetched, a
dialog of tracebacks. With this extension loaded in the student's server
(``c.ServerApp.jpserver_extensions = {"gradekit.handout.lab": True}``, which
``gradekit student-config --dir`` writes), each failed cell is one line, in the
student's language (the notebook's ``metadata.gradekit.language``): its
exercise, and what is still to do -- "write your code in place of
``raise NotImplementedError()``", "write your answer" -- or the visible
check's own message. A fetch, submit, fetch feedback or list the exchange refuses says its one line
(the limit a hand-in went over, too many requests a minute) in the tab, and the server logs that
line, not nbgrader's traceback.
"""

from __future__ import annotations

import html
import re

from nbgrader.validator import Validator

from gradekit.i18n.text import _
from gradekit.notebook.cells import is_solution, is_test
from gradekit.notebook.exercises import headings

STUB = "NotImplementedError"


class GradekitValidator(Validator):
    """nbgrader's Validator, saying one line per failed cell (see the module's docstring)."""

    def validate(self, filename: str):
        self._cells: list[tuple[str, str]] = []
        results = super().validate(filename)
        failed = results.get("failed")
        if failed and self._cells:
            # the Lab's dialog sets "error" as HTML (nbgrader sends a traceback turned into HTML) and "source" as text
            results["failed"] = [
                {"source": title, "error": html.escape(line), "raw_error": line} for title, line in self._cells
            ]
        return results

    def _get_failed_cells(self, nb):
        failed = super()._get_failed_cells(nb)
        from gradekit.i18n.catalogs import translator

        language = (nb.metadata.get("gradekit") or {}).get("language", "en")
        say = translator(None, None, language)
        titles = headings(nb)
        self._cells = [(self._title(nb, cell, titles), self._todo(nb, cell).render(say)) for cell in failed]
        return failed

    @staticmethod
    def _title(nb, cell, titles) -> str:
        gid = (cell.metadata.get("nbgrader") or {}).get("grade_id", "")
        heading = titles.get(gid)
        return f"{heading.title} ({gid})" if heading is not None else gid

    @staticmethod
    def _todo(nb, cell):
        """What the student still has to do for ``cell``, in one line."""
        if is_solution(cell) and not is_test(cell):
            return _("still to do: write your answer")
        index = nb.cells.index(cell)
        answer = next((c for c in reversed(nb.cells[:index]) if is_solution(c)), None)
        if answer is not None and STUB in answer.source:
            if not _defines_code(answer.source):  # a value to give (a quiz), not a function to write
                return _("still to do: write your answer")
            return _("still to do: write your code in place of raise NotImplementedError()")
        error = next((o for o in reversed(cell.get("outputs", [])) if o.get("output_type") == "error"), None)
        if error is None:
            return _("a check did not pass")
        message = (str(error.get("evalue", "")).strip().splitlines() or [""])[0][:300]
        if error.get("ename") == STUB:
            return _("still to do: write your code in place of raise NotImplementedError()")
        return (
            _("{kind}: {message}").format(kind=error.get("ename", "Error"), message=message)
            if message
            else _("{kind} in a check").format(kind=error.get("ename", "Error"))
        )


def _defines_code(source: str) -> bool:
    """Whether an answer cell asks for code (a function or a class), not values."""
    return any(line.lstrip().startswith(("def ", "class ", "async def ")) for line in source.splitlines())


def _jupyter_server_extension_points():
    return [{"module": "gradekit.handout.lab"}]


_EXCHANGE_ERROR = re.compile(r"ExchangeError: (.+)$")


def one_line(result: dict) -> dict:
    """An Assignments tab answer whose failure is an exchange's refusal: its one line, not the traceback
    nbgrader's handler sends (the limit a hand-in went over, a classmate's release asked for, ...)."""
    value = result.get("value")
    if result.get("success") is False and isinstance(value, str):
        lines = [line for line in value.strip().splitlines() if line.strip()]
        found = _EXCHANGE_ERROR.search(lines[-1]) if lines else None
        if found:
            return {**result, "value": found.group(1).strip()}
    return result


def _listing(self, course_id=None, cached: bool = False) -> dict:
    """nbgrader's AssignmentList.list_released_assignments (``cached``: list_submitted_assignments): the
    same answer, but an exchange's refusal is its one line -- to the tab, which shows it in place of the
    list, and to the server's log -- not a traceback and nbgrader's sentence about a missing directory."""
    import os
    import traceback

    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeError, ExchangeFactory

    with self.get_assignment_dir_config() as config:
        try:
            if cached:
                config.ExchangeList.cached = True
            if course_id:
                config.CourseDirectory.course_id = course_id
            coursedir = CourseDirectory(config=config)
            lister = ExchangeFactory(config=config).List(
                coursedir=coursedir, authenticator=Authenticator(config=config), config=config
            )
            assignments = lister.start()
        except ExchangeError as exc:
            line = str(exc).strip().splitlines()[0] if str(exc).strip() else "the exchange refused to list"
            self.log.warning("gradekit: the Assignments tab's list: %s", line)
            return {"success": False, "value": line}
        except Exception as exc:  # noqa: BLE001 - a bug: its traceback in the log, its line in the tab
            self.log.error(traceback.format_exc())
            return {"success": False, "value": f"{type(exc).__name__}: {exc}"}
    root = self._root_dir
    for assignment in assignments:
        if cached:
            for submission in assignment["submissions"]:
                path = submission["local_feedback_path"]
                if path and os.path.exists(path):
                    submission["local_feedback_path"] = os.path.relpath(path, root)
            assignment["submissions"] = sorted(assignment["submissions"], key=lambda x: x["timestamp"])
        elif assignment["status"] == "fetched":
            assignment["path"] = os.path.relpath(assignment["path"], root)
            for notebook in assignment["notebooks"]:
                notebook["path"] = os.path.relpath(notebook["path"], root)
    if cached:
        return {"success": True, "value": sorted(assignments, key=lambda x: x["assignment_id"])}
    return {"success": True, "value": sorted(assignments, key=lambda x: (x["course_id"], x["assignment_id"]))}


def _courses(self, _original) -> dict:
    """nbgrader's AssignmentList.list_courses, the first call of the tab's every Refresh: on an exchange
    whose list is of the student's one course (the hub exchange's), that course, from the server's own
    settings, with no read of the exchange. (Asked of the exchange, a refused read made the tab say only
    "Error fetching courses!", and a second read for the list was held with it.) Elsewhere nbgrader's."""
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory

    with self.get_assignment_dir_config() as config:
        course = CourseDirectory(config=config).course_id
        one_course = getattr(ExchangeFactory(config=config).list, "one_course", False)
    if one_course and course:
        return {"success": True, "value": [course]}
    return _original(self)


def _one_line_failures(manager: type) -> None:
    courses = getattr(manager, "list_courses", None)
    if courses is not None and not getattr(courses, "_gradekit", False):

        def local_courses(self, _original=courses):
            return _courses(self, _original)

        local_courses._gradekit = True  # type: ignore[attr-defined]
        manager.list_courses = local_courses  # type: ignore[attr-defined]
    if not getattr(getattr(manager, "list_released_assignments", None), "_gradekit", False):
        released = lambda self, course_id=None: _listing(self, course_id)
        submitted = lambda self, course_id=None: _listing(self, course_id, cached=True)
        for name, method in (("list_released_assignments", released), ("list_submitted_assignments", submitted)):
            method._gradekit = True  # type: ignore[attr-defined]
            setattr(manager, name, method)
    for name in ("fetch_assignment", "fetch_feedback", "submit_assignment"):
        original = getattr(manager, name, None)
        if original is None or getattr(original, "_gradekit", False):
            continue

        def wrapped(self, *args, _original=original, **kwargs):
            return one_line(_original(self, *args, **kwargs))

        wrapped._gradekit = True  # type: ignore[attr-defined]
        setattr(manager, name, wrapped)


def _load_jupyter_server_extension(serverapp) -> None:
    """Make the Validate button's handler use gradekit's validator, and the Assignments tab say an
    exchange's refusal in its one line (a fetch, a submit, a list)."""
    try:
        from nbgrader.server_extensions.validate_assignment import handlers
    except ImportError:  # nbgrader's validate extension is not installed here: nothing to change
        pass
    else:
        handlers.Validator = GradekitValidator
        serverapp.log.info("gradekit: Validate says one line per failed cell")
    try:
        from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
    except ImportError:
        return
    _one_line_failures(AssignmentList)


load_jupyter_server_extension = _load_jupyter_server_extension  # the name older servers look for
