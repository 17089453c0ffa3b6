"""What the instructor sees: a progress bar while grading and a summary table after."""

from __future__ import annotations

import sys
import time

from gradekit.results import SubmissionResult
from gradekit.untrusted import for_rich, shown


def pts(value: float) -> str:
    """Points as people write them: at most two decimals (16.93, not 16.9333)."""
    return f"{round(value, 2):g}"


class Progress:
    """A rich progress bar on a terminal; plain lines in a pipe or CI."""

    def __init__(self, total: int, label: str = "grading"):
        self.total, self.label, self.done = total, label, 0
        self.started = time.monotonic()
        self.tty = sys.stdout.isatty()
        self._bar = None
        if self.tty:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as Bar

            self._bar = Bar(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
            )
            self._task = self._bar.add_task(label, total=total, rate="")
            self._bar.start()

    def advance(self, result: SubmissionResult) -> None:
        self.done += 1
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        if self._bar is not None:
            self._bar.update(self._task, advance=1, rate=f"{rate:.1f}/s")
        else:
            left = (self.total - self.done) / rate
            note = note_of(result)
            # a submission that could not be graded at all has no cells, hence nothing "possible"
            score = f"{pts(result.final)}/{pts(result.possible)}" if result.possible else pts(result.final)
            status = shown(
                score
                + (f" ({shown(note, 100)})" if note else "")
                + (", as before: nothing changed" if getattr(result, "unchanged", False) else "")
            )
            print(f"[{self.done}/{self.total}] {result.student}: {status} ({rate:.1f}/s, {left:.0f}s left)", flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


class Summary:
    """The end-of-run table, built from compact rows: a class of 50,000 costs kilobytes, not notebooks.

    By default it fits a 100-column terminal: up to ``per_student`` students,
    one row each with one column per notebook, the total and the student's
    most common problem; above that, one row per notebook (mean, full marks,
    zero, its most common problem). ``wide`` gives one column per graded cell
    (one row per cell above ``per_student``). Either way the students whose
    submission could not be graded are listed with the reason, and the class's
    most common problem closes the table.
    """

    WIDTH = 100

    def __init__(self, per_student: int = 60, wide: bool = False):
        self.per_student, self.wide = per_student, wide
        self.cells: list[str] = []
        self.notebooks: list[str] = []
        # (student, cell scores, final, possible, note, per notebook, most common problem, named mistakes)
        self.rows: list[tuple[str, tuple, float, float, str, tuple, str, str]] = []
        self.skipped: list[str] = []  # folders of submitted/ left out ("skipped submitted/x: why")

    def add(self, result: SubmissionResult) -> None:
        scores = []
        for nb in result.notebooks:
            if nb.name not in self.notebooks:
                self.notebooks.append(nb.name)
            for cell in nb.cells:
                if cell.grade_id not in self.cells:
                    self.cells.append(cell.grade_id)
                scores.append((cell.grade_id, cell.score, cell.points))
        per_notebook = tuple((nb.name, nb.final, nb.possible, _notebook_problem(nb)) for nb in result.notebooks)
        self.rows.append(
            (
                result.student,
                tuple(scores),
                result.final,
                result.possible,
                note_of(result),
                per_notebook,
                problem_of(result),
                named_mistakes(result),
            )
        )

    def print(self, title: str) -> None:
        from rich.console import Console

        width = max(120, 12 * len(self.cells) + 60) if self.wide else self.WIDTH
        console = Console(width=width)
        few = len(self.rows) <= self.per_student
        if self.wide:
            console.print(self._per_student(title) if few else self._per_cell(title))
        else:
            console.print(self._compact(title) if few else self._per_notebook(title))
        if not few:
            failed = [(s, n) for s, _, _, _, n, *_ in sorted(self.rows) if n]
            for student, note in failed[:50]:
                console.print(f"  {student}: {for_rich(note)}", overflow="ellipsis", no_wrap=True)
            if len(failed) > 50:
                console.print(f"  ... and {len(failed) - 50} more with a note (see autograded/*/*/results.json)")
        common = self.most_common()
        if common:
            problem, count = common
            console.print(
                f"most common problem: {for_rich(problem)} ({count} of {len(self.rows)} submissions)",
                overflow="ellipsis",
                no_wrap=True,
            )
        if self.skipped:
            shown = "; ".join(line.removeprefix("skipped ") for line in self.skipped[:3])
            more = f"; and {len(self.skipped) - 3} more" if len(self.skipped) > 3 else ""
            console.print(for_rich(f"not graded: {len(self.skipped)} folder(s) of submitted/: {shown}{more}"))

    def most_common(self) -> tuple[str, int] | None:
        from collections import Counter

        counts = Counter(row[6] for row in self.rows if row[6])
        return counts.most_common(1)[0] if counts else None

    def _compact(self, title: str):
        most = max((r[3] for r in self.rows), default=0)
        possible_of = {
            name: max((p for r in self.rows for n, _, p, _ in r[5] if n == name), default=0) for name in self.notebooks
        }
        rows = []
        for student, _, score, possible, _, per_notebook, problem, _ in sorted(self.rows):
            possible = possible or most
            by_name = {n: f for n, f, _, _ in per_notebook}
            cells = [f"{pts(by_name[n])}/{pts(possible_of[n])}" if n in by_name else "-" for n in self.notebooks]
            rows.append([student, *cells, f"{pts(score)}/{pts(possible)}", problem])
        headers = ["student", *self.notebooks, "total", "most common problem"]
        table = _fitted_table(title, headers, rows, right=range(1, len(headers) - 1), width=self.WIDTH)
        return table

    def _per_notebook(self, title: str):
        from collections import Counter

        rows = []
        n = len(self.rows)
        for name in self.notebooks:
            values = [(f, p) for r in self.rows for nb, f, p, _ in r[5] if nb == name]
            points = max((p for _, p in values), default=0)
            problems = Counter(problem for r in self.rows for nb, _, _, problem in r[5] if nb == name and problem)
            common = problems.most_common(1)
            rows.append(
                [
                    name,
                    f"{points:g}",
                    f"{sum(f for f, _ in values) / len(values):.2f}" if values else "-",
                    f"{sum(1 for f, _ in values if points and f >= points)}/{n}",
                    f"{sum(1 for f, _ in values if f == 0)}/{n}",
                    f"{common[0][0]} ({common[0][1]})" if common else "",
                ]
            )
        total = sum(r[2] for r in self.rows)
        possible = max((r[3] for r in self.rows), default=0)
        rows.append(["total", f"{possible:g}", f"{total / n:.2f}" if n else "-", "", "", ""])
        headers = ["notebook", "points", "mean", "full marks", "zero", "most common problem"]
        return _fitted_table(f"{title} (per notebook)", headers, rows, right=range(1, 5), width=self.WIDTH)

    def _per_student(self, title: str):
        from rich.table import Table
        from rich.text import Text

        table = Table(title=title, title_justify="left")
        table.add_column("student")
        for gid in self.cells:
            table.add_column(gid.removeprefix("test_"), justify="right")
        table.add_column("total", justify="right")
        table.add_column("note", max_width=60)  # wrapped between words: named mistakes are read whole
        most = max((r[3] for r in self.rows), default=0)
        for student, scores, score, possible, note, _, _, named in sorted(self.rows):
            possible = possible or most  # not graded at all: out of what the others were graded on
            by_gid = {gid: value for gid, value, _ in scores}
            cells = [
                "-" if gid not in by_gid else ("manual" if by_gid[gid] is None else pts(by_gid[gid]))
                for gid in self.cells
            ]
            said = "; ".join(part for part in (note, named) if part)
            table.add_row(student, *cells, f"{pts(score)}/{pts(possible)}", Text(shown(said)))
        return table

    def _per_cell(self, title: str):
        from rich.table import Table

        table = Table(title=f"{title} (per cell)", title_justify="left")
        for column in ("cell", "points", "mean", "full marks", "zero", "manual"):
            table.add_column(column, justify="left" if column == "cell" else "right")
        n = len(self.rows)
        for gid in self.cells:
            values = [(v, p) for _, scores, *_ in self.rows for g, v, p in scores if g == gid]
            graded = [v for v, _ in values if v is not None]
            points = values[0][1] if values else 0
            table.add_row(
                gid,
                f"{points:g}",
                f"{sum(graded) / len(graded):.2f}" if graded else "-",
                f"{sum(1 for v in graded if v >= points)}/{n}",
                f"{sum(1 for v in graded if v == 0)}/{n}",
                f"{sum(1 for v, _ in values if v is None)}",
            )
        total = sum(r[2] for r in self.rows)
        possible = max((r[3] for r in self.rows), default=0)
        table.add_row("total", f"{possible:g}", f"{total / n:.2f}" if n else "-", "", "", "")
        return table


def _fitted_table(title: str, headers: list[str], rows: list[list[str]], right, width: int):
    """A rich table whose every column but the last keeps its natural width; the last is cut to fit."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left")
    natural = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    used = 1 + sum(w + 3 for w in natural[:-1])  # a border, and padding + border per column
    last = max(12, width - used - 3)
    for i, header in enumerate(headers):
        last_column = i == len(headers) - 1
        table.add_column(
            header,
            justify="right" if i in right else "left",
            no_wrap=True,
            overflow="ellipsis",
            min_width=None if last_column else natural[i],
            max_width=last if last_column else None,
        )
    for row in rows:  # the last column is the student's text (an error message): no rich markup
        table.add_row(*row[:-1], Text(shown(row[-1])))
    return table


def problem_of(result: SubmissionResult) -> str:
    """A student's most common problem: why nothing was graded, else the most frequent
    named mistake or failed check, with the cell it was in ("" when all passed)."""
    note = note_of(result)
    if note:
        return note
    return _most_common_problem(c for nb in result.notebooks for c in nb.cells)


def named_mistakes(result: SubmissionResult) -> str:
    """The mistakes a submission's feedback names, cell by cell: ``"softmax: normalised along the
    wrong axis; tq1: forgot the √d_k"`` ("" when none is named)."""
    return "; ".join(
        f"{cell.grade_id.removeprefix('test_')}: {cell.diagnosis[0]}"
        for nb in result.notebooks
        for cell in nb.cells
        if cell.diagnosis
    )


def _notebook_problem(nb) -> str:
    if nb.error:
        return nb.error
    return _most_common_problem(nb.cells)


def _most_common_problem(cells) -> str:
    from collections import Counter

    named: Counter = Counter()
    unnamed: Counter = Counter()
    for cell in cells:
        where = cell.grade_id.removeprefix("test_")
        if cell.diagnosis:  # a named mistake says more than a failed check
            named[f"{where}: {cell.diagnosis[0]}"] += 1
            continue
        failed = [k for k in cell.checks if not k.passed]
        if failed:
            unnamed[f"{where}: {failed[0].message or failed[0].name}"] += 1
    counts = named or unnamed
    return counts.most_common(1)[0][0] if counts else ""


def note_of(result: SubmissionResult) -> str:
    """The one-line reason a submission lost points wholesale (or a late penalty), if any."""
    late = (
        f"late penalty {pts(result.late_penalty)} (score {pts(result.score)} before it)" if result.late_penalty else ""
    )
    note = _lost_everything(result)
    return "; ".join(part for part in (note, late, *result.notes) if part)


def _lost_everything(result: SubmissionResult) -> str:
    """Why nothing was graded, or a notebook's cells that failed to run (each exercise is graded without
    them: a notebook that kept full marks says so, so that its row never reads as a loss)."""
    if result.error:
        return result.error
    for nb in result.notebooks:
        if nb.error:
            return nb.error if nb.error.startswith(nb.name) else f"{nb.name}: {nb.error}"
        failed = [run for run in nb.runs if not run.ok]
        if failed and len(failed) == len(nb.runs):
            return f"{nb.name}: no cell ran: {failed[0].error}"
        if failed:
            what = f"{len(failed)} cell(s) failed, first: {failed[0].error}"
            if nb.possible and nb.score >= nb.possible:  # skipped, and every exercise right without them
                return f"{nb.name}: full marks, though {what}"
            return f"{nb.name}: {what}"
    return ""
