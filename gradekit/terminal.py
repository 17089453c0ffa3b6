"""What the instructor sees: a progress bar while grading and a summary table after."""

from __future__ import annotations

import sys
import time

from .results import SubmissionResult
from .untrusted import for_rich, shown


class Progress:
    """A rich progress bar on a terminal; plain lines in a pipe or CI."""

    def __init__(self, total: int, label: str = "grading"):
        self.total, self.label, self.done = total, label, 0
        self.started = time.monotonic()
        self.tty = sys.stdout.isatty()
        self._bar = None
        if self.tty:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn,
                                       TimeRemainingColumn)

            self._bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
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
            score = f"{result.final:g}/{result.possible:g}" if result.possible else f"{result.final:g}"
            status = score + (f" ({note[:80]})" if note else "")
            status = shown(status)
            print(f"[{self.done}/{self.total}] {result.student}: {status} "
                  f"({rate:.1f}/s, {left:.0f}s left)", flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


class Summary:
    """The end-of-run table, built from compact rows: a class of 50,000 costs kilobytes, not notebooks.

    Up to ``per_student`` students: one row each, one column per graded cell.
    Above that: one row per cell (mean, full marks, zero), then the students
    whose submission could not be graded, with the reason.
    """

    def __init__(self, per_student: int = 60):
        self.per_student = per_student
        self.cells: list[str] = []
        self.rows: list[tuple[str, tuple, float, float, str]] = []

    def add(self, result: SubmissionResult) -> None:
        scores = []
        for nb in result.notebooks:
            for cell in nb.cells:
                if cell.grade_id not in self.cells:
                    self.cells.append(cell.grade_id)
                scores.append((cell.grade_id, cell.score, cell.points))
        self.rows.append((result.student, tuple(scores), result.final, result.possible, note_of(result)))

    def print(self, title: str) -> None:
        from rich.console import Console

        console = Console(width=max(120, 12 * len(self.cells) + 60))
        console.print(self._per_student(title) if len(self.rows) <= self.per_student else self._per_cell(title))
        if len(self.rows) > self.per_student:
            failed = [(s, n) for s, _, _, _, n in sorted(self.rows) if n]
            for student, note in failed[:50]:
                console.print(f"  {student}: {for_rich(note)}")
            if len(failed) > 50:
                console.print(f"  ... and {len(failed) - 50} more with a note (see autograded/*/*/results.json)")

    def _per_student(self, title: str):
        from rich.table import Table
        from rich.text import Text

        table = Table(title=title, title_justify="left")
        table.add_column("student")
        for gid in self.cells:
            table.add_column(gid.removeprefix("test_"), justify="right")
        table.add_column("total", justify="right")
        table.add_column("note", no_wrap=True, overflow="ellipsis", max_width=48)
        most = max((r[3] for r in self.rows), default=0)
        for student, scores, score, possible, note in sorted(self.rows):
            possible = possible or most  # not graded at all: out of what the others were graded on
            by_gid = {gid: value for gid, value, _ in scores}
            cells = ["-" if gid not in by_gid else ("manual" if by_gid[gid] is None else f"{by_gid[gid]:g}")
                     for gid in self.cells]
            table.add_row(student, *cells, f"{score:g}/{possible:g}", Text(shown(note)))
        return table

    def _per_cell(self, title: str):
        from rich.table import Table

        table = Table(title=f"{title} (per cell)", title_justify="left")
        for column in ("cell", "points", "mean", "full marks", "zero", "manual"):
            table.add_column(column, justify="left" if column == "cell" else "right")
        n = len(self.rows)
        for gid in self.cells:
            values = [(v, p) for _, scores, _, _, _ in self.rows for g, v, p in scores if g == gid]
            graded = [v for v, _ in values if v is not None]
            points = values[0][1] if values else 0
            table.add_row(gid, f"{points:g}", f"{sum(graded) / len(graded):.2f}" if graded else "-",
                          f"{sum(1 for v in graded if v >= points)}/{n}", f"{sum(1 for v in graded if v == 0)}/{n}",
                          f"{sum(1 for v, _ in values if v is None)}")
        total = sum(r[2] for r in self.rows)
        possible = max((r[3] for r in self.rows), default=0)
        table.add_row("total", f"{possible:g}", f"{total / n:.2f}" if n else "-", "", "", "")
        return table


def note_of(result: SubmissionResult) -> str:
    """The one-line reason a submission lost points wholesale (or a late penalty), if any."""
    late = f"late penalty {result.late_penalty:g} (score {result.score:g} before it)" if result.late_penalty else ""
    note = _lost_everything(result)
    return "; ".join(part for part in (note, late, *result.notes) if part)


def _lost_everything(result: SubmissionResult) -> str:
    if result.error:
        return result.error
    for nb in result.notebooks:
        if nb.error:
            return nb.error if nb.error.startswith(nb.name) else f"{nb.name}: {nb.error}"
        failed = [run for run in nb.runs if not run.ok]
        if failed and len(failed) == len(nb.runs):
            return f"{nb.name}: no cell ran: {failed[0].error}"
        if failed:
            return f"{nb.name}: {len(failed)} cell(s) raised, first: {failed[0].error}"
    return ""
