"""The grading page for what a person grades: what it shows and changes, apart from HTTP.

One page, no files fetched from anywhere (its script and style are inline): it works
offline. Its labels are in the instructor's language (``--language``, or
``c.Gradekit.language``), from gradekit's catalog. The page talks to its server in JSON::

    GET  api/state                       the questions, the labels
    GET  api/q/<cell>                    the rubric and the groups (largest first), each with its typical answer
    GET  api/q/<cell>/g/<group>          a group's answers, their items and scores
    GET  api/context/<student>           their numbers and their code's named mistakes
    POST api/q/<cell>/<change>           apply, grade, item, delete, mode, move, merge (gradekit.manual.actions)
    POST api/undo                        the session's last change taken back

:class:`GradingApp` answers each of them; gradekit.hub.grading serves it (on tornado: inside a
JupyterHub behind the hub's login, or alone with a printed token). Each page (browser tab) is a
session of its own: undo takes back that page's changes only.
"""

from __future__ import annotations

import json
import os
import threading

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.gradebook.rubrics import score
from gradekit.i18n import _
from gradekit.manual.actions import Desk

# every label of the page, in gradekit's catalog (gradekit/locale/<lang>.po)
LABELS = {
    "title": _("Grading {assignment}"),
    "question": _("Question"),
    "groups": _("Groups"),
    "answers": _("answers"),
    "graded": _("graded"),
    "of": _("{graded} of {total} graded"),
    "group": _("Group {n}"),
    "size": _("{n} answers"),
    "size_one": _("1 answer"),
    "typical": _("Typical answer"),
    "empty": _("empty or untouched"),
    "rubric": _("Rubric"),
    "mode": _("Items"),
    "subtract": _("subtract from full marks"),
    "add": _("add up from zero"),
    "adjust": _("adjust the autograder's score"),
    "points": _("points"),
    "sentence": _("feedback sentence"),
    "translation": _("translation ({language})"),
    "new_item": _("New item"),
    "save": _("Save"),
    "cancel": _("Cancel"),
    "edit": _("Edit"),
    "delete": _("Delete"),
    "apply_group": _("Apply to the whole group"),
    "apply_selected": _("Apply to the selected answers"),
    "grade_as_is": _("Graded as it is (Enter)"),
    "undo": _("Undo (u)"),
    "split": _("Split the selected into a new group"),
    "move_to": _("Move the selected to group…"),
    "merge_with": _("Merge this group with…"),
    "context": _("Context"),
    "student": _("Student"),
    "score": _("Score"),
    "not_graded": _("not graded yet"),
    "numbers": _("Their numbers"),
    "mistakes": _("Mistakes named in their code"),
    "no_mistakes": _("No mistake named."),
    "close": _("Close"),
    "keys": _("Keys: 1–9 give an item, Enter grades as is, j/k next and previous group, u undo."),
    "show_more": _("Show more"),
    "undone": _("Undone: {what}"),
    "nothing_to_undo": _("Nothing to undo."),
    "changed": _("{n} answers changed"),
    "changed_one": _("1 answer changed"),
    "right": _("right"),
    "unexplained": _("wrong, no known mistake"),
    "unanswered": _("not answered"),
    "mistake": _("matches a known mistake"),
    "auto": _("autograder"),
    "language": _("language"),
    "select_all": _("select all"),
}


def labels(language: str) -> dict[str, str]:
    from gradekit.i18n.catalogs import translator
    from gradekit.i18n.text import render

    translate = translator(None, None, language)
    return {key: render(text, translate) for key, text in LABELS.items()}


class GradingApp:
    """What the server does for each request, apart from HTTP (the tests call it directly too)."""

    def __init__(
        self,
        course: Course,
        assignment: str,
        language: str = "en",
        grader: str = "",
        prefix: str = "/",
    ):
        self.course, self.assignment, self.language = course, assignment, language
        self.grader = grader or os.environ.get("USER", "") or "grader"
        self.prefix = prefix if prefix.endswith("/") else prefix + "/"
        self.desk = Desk(course, assignment)
        self.labels = labels(language)
        self._contexts: dict[str, dict] = {}
        self._lock = threading.Lock()

    def prepare(self) -> list[str]:
        """Group every manually graded question now (a few seconds for thousands), so the page opens at once."""
        done = []
        for q in self.desk.questions():
            if q.kind != "numbers":
                self.desk.open(q.cell)
                done.append(q.cell)
        return done

    # ------------------------------------------------------------------ reads

    def state(self) -> dict:
        out = []
        with self.desk.store.reading() as db:
            held = dict(db.execute("SELECT cell, COUNT(*) FROM answer GROUP BY cell").fetchall())
            graded = dict(db.execute("SELECT cell, COUNT(*) FROM answer WHERE graded = 1 GROUP BY cell").fetchall())
        for q in self.desk.questions():
            out.append({**q.to_dict(), "total": held.get(q.cell), "graded": graded.get(q.cell, 0)})
        return {
            "assignment": self.assignment,
            "language": self.language,
            "grader": self.grader,
            "labels": self.labels,
            "questions": out,
        }

    def question(self, cell: str) -> dict:
        q = self.desk.question(cell)
        self.desk.open(cell)
        found = self.desk.answers(cell)
        store = self.desk.store
        with store.reading() as db:
            row = store.question_row(db, cell)
            items = store.items(db, cell)
            groups = store.groups(db, cell)
            info = store.group_info(db, cell)
            applied = store.applied(db, cell)
            graded = store.graded(db, cell)
        shown = []
        for gid, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            if not members:
                continue
            counts: dict[int, int] = {}
            for s in members:
                for i in applied.get(s, ()):
                    counts[i] = counts.get(i, 0) + 1
            typical = found.get(members[0])
            label, kind = info.get(gid, ("", ""))
            shown.append(
                {
                    "id": gid,
                    "size": len(members),
                    "graded": sum(1 for s in members if s in graded),
                    "label": label,
                    "kind": kind,
                    "typical": {"student": members[0], "text": _clip(typical)},
                    "items": counts,
                }
            )
        return {
            "question": {**q.to_dict(), "mode": row["mode"] if row else ""},
            "items": [i.to_dict() for i in items],
            "groups": shown,
            "total": sum(len(m) for m in groups.values()),
            "graded": len(graded),
        }

    def group(self, cell: str, gid: int, offset: int = 0, limit: int = 50) -> dict:
        found = self.desk.answers(cell)
        store = self.desk.store
        with store.reading() as db:
            row = store.question_row(db, cell)
            members = store.groups(db, cell).get(gid, [])
            items = {i.id: i for i in store.items(db, cell)}
            applied = store.applied(db, cell, members)
            graded = store.graded(db, cell)
        assert row is not None
        out = []
        for s in members[offset : offset + limit]:
            a = found.get(s)
            got = sorted(i for i in applied.get(s, ()) if i in items)
            auto = a.auto if a is not None else None
            value = None
            if s in graded:
                value = (
                    auto
                    if row["mode"] == "adjust" and not got
                    else score(row["mode"], float(row["points"]), [items[i].points for i in got], auto)
                )
            out.append(
                {
                    "student": s,
                    "text": _clip(a, 4000),
                    "language": a.language if a else "",
                    "items": got,
                    "graded": s in graded,
                    "score": value,
                    "auto": auto,
                    "verdict": list(a.verdict) if a else ["", ""],
                }
            )
        return {"group": gid, "size": len(members), "offset": offset, "members": out}

    def context(self, student: str) -> dict:
        from gradekit.manual.answers import context
        from gradekit.untrusted import require_id

        require_id("student", student)
        with self._lock:
            if student not in self._contexts:
                self._contexts[student] = context(self.course, self.assignment, student)
            return self._contexts[student]

    # ------------------------------------------------------------------ changes

    def change(self, cell: str, what: str, body: dict, session: str, grader: str = "") -> dict:
        d, g = self.desk, grader or self.grader
        students = [str(s) for s in body.get("students") or []] or None
        group = int(body["group"]) if body.get("group") is not None else None
        if what == "apply":
            return d.apply(cell, int(body["item"]), g, session, students, group, body.get("on"))
        if what == "grade":
            return d.grade(cell, g, session, students, group)
        if what == "item":
            return d.save_item(
                cell,
                g,
                session,
                body.get("points", 0),
                body.get("text", ""),
                body.get("texts"),
                int(body["id"]) if body.get("id") is not None else None,
            )
        if what == "delete":
            return d.delete_item(cell, int(body["id"]), g, session)
        if what == "mode":
            return d.set_mode(cell, str(body.get("mode")), g, session)
        if what == "move":
            to = body.get("to")
            return d.move(cell, students or [], int(to) if to is not None else None, g, session)
        if what == "merge":
            return d.merge(cell, int(body["into"]), int(body["other"]), g, session)
        raise UsageError(f"no such change: {what}")

    def page(self, xsrf: str = "") -> str:
        """The page; ``xsrf``: the token its POSTs carry inside a hub (with the hub's login cookie)."""
        from gradekit.pages import look

        boot = {
            "prefix": self.prefix,
            "assignment": self.assignment,
            "labels": self.labels,
            "language": self.language,
            "xsrf": xsrf,
        }
        return look.render(
            "grade.html",
            self.language,
            None,
            title=self.labels["title"].format(assignment=self.assignment),
            boot=json.dumps(boot, ensure_ascii=False).replace("</", "<\\/"),
        )


def _clip(answer, limit: int = 600) -> str:
    text = answer.text if answer is not None else ""
    return text if len(text) <= limit else text[:limit] + "…"
