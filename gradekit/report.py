"""What the instructor sees: a progress bar while grading and a summary table after."""

from __future__ import annotations

import sys
import time
from typing import Iterable

from .results import SubmissionResult


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
            status = f"{result.score:g}/{result.possible:g}" + (f" ({note[:80]})" if note else "")
            print(f"[{self.done}/{self.total}] {result.student}: {status} "
                  f"({rate:.1f}/s, {left:.0f}s left)", flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def summary(results: Iterable[SubmissionResult], title: str = "grades") -> None:
    """Print a table: one row per student, one column per graded cell."""
    from rich.console import Console
    from rich.table import Table

    results = sorted(results, key=lambda r: r.student)
    cells: list[str] = []
    for r in results:
        for nb in r.notebooks:
            for c in nb.cells:
                if c.grade_id not in cells:
                    cells.append(c.grade_id)
    table = Table(title=title, title_justify="left")
    table.add_column("student")
    for gid in cells:
        table.add_column(gid.removeprefix("test_"), justify="right")
    table.add_column("total", justify="right")
    table.add_column("note", no_wrap=True, overflow="ellipsis", max_width=48)
    for r in results:
        row = [r.student]
        for gid in cells:
            c = r.cell(gid)
            row.append("-" if c is None else ("manual" if c.score is None else f"{c.score:g}"))
        row += [f"{r.score:g}/{r.possible:g}", note_of(r)]
        table.add_row(*row)
    Console(width=max(160, 12 * len(cells) + 60)).print(table)


def note_of(result: SubmissionResult) -> str:
    """The one-line reason a submission lost everything, if it did."""
    if result.error:
        return result.error
    for nb in result.notebooks:
        if nb.error:
            return f"{nb.name}: {nb.error}"
        failed = [run for run in nb.runs if not run.ok]
        if failed and len(failed) == len(nb.runs):
            return f"{nb.name}: no cell ran: {failed[0].error}"
        if failed:
            return f"{nb.name}: {len(failed)} cell(s) raised, first: {failed[0].error}"
    return ""
