"""Every change a grader makes, each one step that undo can take back.

    Desk(course, assignment)                       what the grading page works through
    ├── open(question)                              the question's groups, made on first use
    ├── apply(cell, item, students, on)             give (or take away) an item; marks the answers graded
    ├── grade(cell, students)                       graded as they are: no item (full marks when subtracting)
    ├── save_item(cell, ...) / delete_item           a rubric item's points, sentence, translations
    ├── set_mode(cell, mode)                        subtract from full marks, add from zero, adjust the autograder
    ├── move(cell, students, to) / merge(cell, a, b) split a group, move an answer, merge two groups
    └── undo(session)                               the session's last change, taken back

Each change is one store transaction (:meth:`gradekit.gradebook.rubrics.Store.change`) in which
the scores of every answer it touches are computed from the new state and written into
the gradebook: editing an item rewrites the grade and comment of everyone who has it.
"""

from __future__ import annotations

from collections.abc import Iterable

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.gradebook.rubrics import Store, require_mode
from gradekit.manual import answers as answers_mod
from gradekit.manual.marks import GradebookWriter


class Desk:
    def __init__(
        self, course: Course, assignment: str, store: Store | None = None, writer: GradebookWriter | None = None
    ):
        self.course, self.assignment = course, assignment
        self.store = store or Store(course, assignment)
        self.writer = writer or GradebookWriter(course, assignment)
        self._questions = {q.cell: q for q in answers_mod.questions(course, assignment)}
        self._answers: dict[str, dict[str, answers_mod.Answer]] = {}
        self._languages: dict[str, str] | None = None

    # ------------------------------------------------------------------ questions and answers

    def questions(self) -> list[answers_mod.Question]:
        return list(self._questions.values())

    def question(self, cell: str) -> answers_mod.Question:
        q = self._questions.get(cell)
        if q is None:
            q = answers_mod.question(self.course, self.assignment, cell)
        return q

    def languages(self) -> dict[str, str]:
        if self._languages is None:
            from gradekit.authoring.languages import student_languages

            self._languages = dict(student_languages(self.course))
        return self._languages

    def answers(self, cell: str, reload: bool = False) -> dict[str, answers_mod.Answer]:
        if reload or cell not in self._answers:
            q = self.question(cell)
            found = answers_mod.read_answers(self.course, self.assignment, q)
            self._answers[cell] = {a.student: a for a in found.answers}
            for a in found.answers:
                self.languages().setdefault(a.student, a.language)
        return self._answers[cell]

    def open(self, cell: str) -> None:
        """The question's rubric row and groups: answers no group holds yet (all of them the first time,
        late submissions later) are grouped among themselves and added as new groups."""
        from gradekit.manual import glossary, groups

        q = self.question(cell)
        found = self.answers(cell)
        with self.store.change() as db:
            self.store.ensure_question(db, q)
            held = {s for (s,) in db.execute("SELECT student FROM answer WHERE cell = ?", (cell,))}
            new = [a for s, a in found.items() if s not in held]
            if not new:
                return
            made = groups.for_answers(
                q.kind,
                [a.text for a in new],
                [a.verdict for a in new],
                [a.stub for a in new],
                glossary.for_cell(self.course.graders_dir(self.assignment), q.cell),
            )
            top = db.execute("SELECT COALESCE(MAX(id), 0) FROM grp WHERE cell = ?", (cell,)).fetchone()[0]
            for n, group in enumerate(made, top + 1):
                db.execute("INSERT INTO grp VALUES (?, ?, ?, ?)", (cell, n, group.label, group.kind))
                db.executemany(
                    "INSERT INTO answer (cell, student, grp, position, graded) VALUES (?, ?, ?, ?, 0)",
                    [(cell, new[i].student, n, pos) for pos, i in enumerate(group.members)],
                )

    # ------------------------------------------------------------------ scoring

    def _rescore(self, db, cell: str, students: Iterable[str]) -> dict[str, float | None]:
        students = sorted(set(students))
        if not students:
            return {}
        q = self.store.question_row(db, cell)
        assert q is not None
        items = {i.id: i for i in self.store.items(db, cell)}
        applied = self.store.applied(db, cell, students)
        graded = self.store.graded(db, cell)
        todo = {
            s: (
                [items[i] for i in sorted(applied.get(s, ()), key=lambda i: (items[i].position, i)) if i in items]
                if s in graded
                else None
            )
            for s in students
        }
        return self.writer.write(q, todo, self.languages())

    def rescore_all(self, cell: str) -> dict[str, float | None]:
        with self.store.change() as db:
            held = [s for (s,) in db.execute("SELECT student FROM answer WHERE cell = ?", (cell,))]
            return self._rescore(db, cell, held)

    def _members(self, db, cell: str, students: Iterable[str] | None, group: int | None) -> list[str]:
        if group is not None:
            return self.store.groups(db, cell).get(group, [])
        return list(students or [])

    # ------------------------------------------------------------------ changes

    def apply(
        self,
        cell: str,
        item: int,
        grader: str,
        session: str,
        students=None,
        group: int | None = None,
        on: bool | None = None,
    ) -> dict:
        """Give ``item`` to the answers (on=True), take it away (False), or toggle: away when all have it."""
        with self.store.change() as db:
            who = self._members(db, cell, students, group)
            if (
                db.execute("SELECT 1 FROM item WHERE id = ? AND cell = ? AND deleted = 0", (item, cell)).fetchone()
                is None
            ):
                raise UsageError(f"no rubric item {item} on {cell}")
            have = {s for s, got in self.store.applied(db, cell, who).items() if item in got}
            if on is None:
                on = not (who and all(s in have for s in who))
            added = [s for s in who if s not in have] if on else []
            removed = [s for s in who if s in have] if not on else []
            newly = self._mark_graded(db, cell, who)
            db.executemany("INSERT OR IGNORE INTO applied VALUES (?, ?, ?)", [(cell, s, item) for s in added])
            db.executemany(
                "DELETE FROM applied WHERE cell = ? AND student = ? AND item = ?", [(cell, s, item) for s in removed]
            )
            undo = {"cell": cell, "item": item, "added": added, "removed": removed, "graded": newly}
            self.store.log(db, grader, session, "apply", undo)
            scores = self._rescore(db, cell, who)
        return {"changed": len(added) + len(removed), "scores": scores}

    def _mark_graded(self, db, cell: str, students: list[str]) -> list[str]:
        graded = self.store.graded(db, cell)
        newly = [s for s in students if s not in graded]
        db.executemany("UPDATE answer SET graded = 1 WHERE cell = ? AND student = ?", [(cell, s) for s in newly])
        return newly

    def grade(self, cell: str, grader: str, session: str, students=None, group: int | None = None) -> dict:
        """The answers graded as they are, with the items they have (none: full marks when subtracting)."""
        with self.store.change() as db:
            who = self._members(db, cell, students, group)
            newly = self._mark_graded(db, cell, who)
            self.store.log(db, grader, session, "grade", {"cell": cell, "graded": newly})
            scores = self._rescore(db, cell, who)
        return {"changed": len(newly), "scores": scores}

    def save_item(
        self,
        cell: str,
        grader: str,
        session: str,
        points: float,
        text: str,
        texts: dict[str, str] | None = None,
        item: int | None = None,
    ) -> dict:
        """A new item, or an edit of ``item``: every student who has it is written again."""
        text = " ".join(str(text).split())
        if not text:
            raise UsageError("a rubric item needs its sentence")
        try:
            points = float(points)
        except (TypeError, ValueError):
            raise UsageError(f"a rubric item's points are a number, not {points!r}") from None
        texts = {k: " ".join(str(v).split()) for k, v in (texts or {}).items() if str(k).isalnum()}
        with self.store.change() as db:
            if item is None:
                position = db.execute(
                    "SELECT COALESCE(MAX(position), 0) + 1 FROM item WHERE cell = ?", (cell,)
                ).fetchone()[0]
                item = int(
                    db.execute(
                        "INSERT INTO item (cell, position, points, text) VALUES (?, ?, ?, ?)",
                        (cell, position, points, text),
                    ).lastrowid
                    or 0
                )
                self._set_texts(db, item, texts)
                self.store.log(db, grader, session, "create", {"cell": cell, "item": item})
                return {"item": item, "changed": 0}
            old = next((i for i in self.store.items(db, cell) if i.id == item), None)
            if old is None:
                raise UsageError(f"no rubric item {item} on {cell}")
            db.execute("UPDATE item SET points = ?, text = ? WHERE id = ?", (points, text, item))
            self._set_texts(db, item, texts)
            self.store.log(
                db,
                grader,
                session,
                "edit",
                {"cell": cell, "item": item, "points": old.points, "text": old.text, "texts": old.texts},
            )
            who = [s for (s,) in db.execute("SELECT student FROM applied WHERE cell = ? AND item = ?", (cell, item))]
            scores = self._rescore(db, cell, who)
        return {"item": item, "changed": len(who), "scores": scores}

    def _set_texts(self, db, item: int, texts: dict[str, str]) -> None:
        db.execute("DELETE FROM item_text WHERE item = ?", (item,))
        db.executemany("INSERT INTO item_text VALUES (?, ?, ?)", [(item, k, v) for k, v in texts.items() if v])

    def delete_item(self, cell: str, item: int, grader: str, session: str) -> dict:
        with self.store.change() as db:
            db.execute("UPDATE item SET deleted = 1 WHERE id = ? AND cell = ?", (item, cell))
            who = [s for (s,) in db.execute("SELECT student FROM applied WHERE cell = ? AND item = ?", (cell, item))]
            self.store.log(db, grader, session, "delete", {"cell": cell, "item": item})
            scores = self._rescore(db, cell, who)
        return {"changed": len(who), "scores": scores}

    def set_mode(self, cell: str, mode: str, grader: str, session: str) -> dict:
        require_mode(mode)
        with self.store.change() as db:
            q = self.store.question_row(db, cell)
            if q is None:
                raise UsageError(f"{cell} has no rubric yet")
            db.execute("UPDATE question SET mode = ? WHERE cell = ?", (mode, cell))
            self.store.log(db, grader, session, "mode", {"cell": cell, "mode": q["mode"]})
            who = sorted(self.store.graded(db, cell))
            scores = self._rescore(db, cell, who)
        return {"changed": len(who), "scores": scores}

    def move(self, cell: str, students: list[str], to: int | None, grader: str, session: str) -> dict:
        """Move answers to group ``to``; None: into a new group of their own (a split)."""
        with self.store.change() as db:
            if to is None:
                to = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM grp WHERE cell = ?", (cell,)).fetchone()[0]
                db.execute("INSERT INTO grp VALUES (?, ?, '', '')", (cell, to))
            elif db.execute("SELECT 1 FROM grp WHERE cell = ? AND id = ?", (cell, to)).fetchone() is None:
                raise UsageError(f"{cell} has no group {to}")
            moves = self._move(db, cell, students, to)
            self.store.log(db, grader, session, "move", {"cell": cell, "moves": moves})
        return {"group": to, "changed": len(moves)}

    def _move(self, db, cell: str, students: list[str], to: int) -> list[list]:
        moves = []
        end = db.execute(
            "SELECT COALESCE(MAX(position), -1) + 1 FROM answer WHERE cell = ? AND grp = ?", (cell, to)
        ).fetchone()[0]
        for n, student in enumerate(students):
            row = db.execute(
                "SELECT grp, position FROM answer WHERE cell = ? AND student = ?", (cell, student)
            ).fetchone()
            if row is None or row[0] == to:
                continue
            db.execute(
                "UPDATE answer SET grp = ?, position = ? WHERE cell = ? AND student = ?", (to, end + n, cell, student)
            )
            moves.append([student, row[0], row[1]])
        return moves

    def merge(self, cell: str, into: int, other: int, grader: str, session: str) -> dict:
        with self.store.change() as db:
            students = self.store.groups(db, cell).get(other, [])
            moves = self._move(db, cell, students, into)
            self.store.log(db, grader, session, "move", {"cell": cell, "moves": moves})
        return {"group": into, "changed": len(moves)}

    def _ungrade(self, db, cell: str, students: list[str]) -> None:
        """Not graded any more -- unless an item (another grader's, since) still stands on the answer."""
        holding = set(self.store.applied(db, cell, students))
        db.executemany(
            "UPDATE answer SET graded = 0 WHERE cell = ? AND student = ?",
            [(cell, s) for s in students if s not in holding],
        )

    def undo(self, session: str, grader: str) -> dict:
        """Take back this session's last change that is not taken back yet."""
        with self.store.change() as db:
            last = self.store.last_action(db, session)
            if last is None:
                return {"undone": None}
            action_id, what, u = last
            cell = u["cell"]
            touched: list[str] = []
            if what == "apply":
                db.executemany(
                    "DELETE FROM applied WHERE cell = ? AND student = ? AND item = ?",
                    [(cell, s, u["item"]) for s in u["added"]],
                )
                db.executemany(
                    "INSERT OR IGNORE INTO applied VALUES (?, ?, ?)", [(cell, s, u["item"]) for s in u["removed"]]
                )
                self._ungrade(db, cell, u["graded"])
                touched = u["added"] + u["removed"] + u["graded"]
            elif what == "grade":
                self._ungrade(db, cell, u["graded"])
                touched = u["graded"]
            elif what == "create":
                db.execute("UPDATE item SET deleted = 1 WHERE id = ?", (u["item"],))
            elif what == "edit":
                db.execute("UPDATE item SET points = ?, text = ? WHERE id = ?", (u["points"], u["text"], u["item"]))
                self._set_texts(db, u["item"], u["texts"])
                touched = [s for (s,) in db.execute("SELECT student FROM applied WHERE item = ?", (u["item"],))]
            elif what == "delete":
                db.execute("UPDATE item SET deleted = 0 WHERE id = ?", (u["item"],))
                touched = [s for (s,) in db.execute("SELECT student FROM applied WHERE item = ?", (u["item"],))]
            elif what == "mode":
                db.execute("UPDATE question SET mode = ? WHERE cell = ?", (u["mode"], cell))
                touched = sorted(self.store.graded(db, cell))
            elif what == "move":
                for student, grp, position in u["moves"]:
                    db.execute(
                        "UPDATE answer SET grp = ?, position = ? WHERE cell = ? AND student = ?",
                        (grp, position, cell, student),
                    )
            db.execute("UPDATE action SET undone = 1 WHERE id = ?", (action_id,))
            self.store.log(db, grader, session, "undo", {"cell": cell, "action": action_id})
            scores = self._rescore(db, cell, touched)
        return {"undone": what, "cell": cell, "changed": len(set(touched)), "scores": scores}
