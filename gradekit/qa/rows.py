"""What ``gradekit check`` found: one Row per check, and the table it prints."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Row:
    check: str
    ok: bool | None  # None: information, not a pass or a failure
    detail: str = ""
    warn: bool = False  # information the author should act on (it fails nothing)


@dataclass
class CheckReport:
    assignment: str
    students: int
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0
    gradings: int = 0
    ids: frozenset[str] = frozenset()  # the simulated students: a failure "qa001: ..." is grouped by them

    kept: str = ""  # where --keep put the simulated class ("": not kept)

    @property
    def ok(self) -> bool:
        return all(row.ok is not False for row in self.rows)

    def to_dict(self) -> dict:
        """The report as plain JSON (``gradekit check --json``): each row's check, its status --
        "ok", "fail", "info" or "warn" -- and its detail."""
        return {
            "assignment": self.assignment,
            "students": self.students,
            "gradings": self.gradings,
            "seconds": round(self.seconds, 3),
            "ok": self.ok,
            "failed": sum(1 for row in self.rows if row.ok is False),
            "kept": self.kept or None,
            "rows": [{"check": row.check, "status": status(row), "detail": row.detail} for row in self.rows],
        }

    def add(self, check: str, failures: list[str], passed: str = "", limit: int = 3) -> None:
        shown = _grouped(failures, self.ids)
        detail = (
            passed
            if not failures
            else "; ".join(shown[:limit]) + (f"; and {len(shown) - limit} more" if len(shown) > limit else "")
        )
        self.rows.append(Row(check, not failures, detail))


def status(row: Row) -> str:
    if row.ok:
        return "ok"
    if row.ok is False:
        return "fail"
    return "warn" if row.warn else "info"


def _grouped(failures: list[str], ids: frozenset[str]) -> list[str]:
    """Each failure of simulated students once, with the students it happened to: ``"qa001: what"``
    for five of them becomes ``"what (qa001, qa002, qa003 and 2 more)"``, in first-seen order.
    Any other failure stays as it is."""
    out: list[str | list] = []
    students: dict[str, list[str]] = {}
    for failure in failures:
        who, sep, what = failure.partition(": ")
        if not (sep and who in ids):
            out.append(failure)
        elif what in students:
            if who not in students[what]:
                students[what].append(who)
        else:
            students[what] = [who]
            out.append([what])
    return [
        item
        if isinstance(item, str)
        else "{what} ({who}{more})".format(
            what=item[0],
            who=", ".join(students[item[0]][:3]),
            more=f" and {len(students[item[0]]) - 3} more" if len(students[item[0]]) > 3 else "",
        )
        for item in out
    ]


def width() -> int | None:
    """The table's width: the terminal's on a terminal (None: rich asks it), else $COLUMNS, else 100
    (a log, a pipe, CI: what fits a window next to an editor)."""
    import os
    import sys

    if sys.stdout.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) >= 40 else 100


def print_report(report: CheckReport) -> None:
    """The table: one row per check, what failed and where; a summary line."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from gradekit.untrusted import shown

    table = Table(
        title=f"gradekit check {report.assignment}: {report.students} simulated students, "
        f"{report.gradings} gradings, {report.seconds:.1f} s",
        title_justify="left",
    )
    console = Console(width=width())
    # both wrap between words where the table is wider than the window; the details get the larger share.
    # A word longer than its column (a file's path) is folded onto the next line, never cut short
    table.add_column("check", max_width=max(24, console.width * 2 // 5), overflow="fold")
    table.add_column("", justify="center", no_wrap=True)
    table.add_column("details", overflow="fold")
    for row in report.rows:
        mark = (
            Text("ok", style="green")
            if row.ok
            else Text("FAIL", style="bold red")
            if row.ok is False
            else Text("warn", style="bold yellow")
            if row.warn
            else Text("info", style="dim")
        )
        table.add_row(Text(row.check), mark, Text(shown(row.detail, 600)))
    console.print(table)
    failed = [row for row in report.rows if row.ok is False]
    if report.kept:
        console.print(Text(f"the simulated class is kept in {report.kept} (open index.html there)"))
    warned = [row.check for row in report.rows if row.warn and row.ok is None]
    if warned:
        console.print(Text(f"{len(warned)} warning(s): {'; '.join(warned)}", style="bold yellow"))
    console.print(
        Text(
            f"{len(failed)} check(s) failed" if failed else "every check passed",
            style="bold red" if failed else "bold green",
        )
    )
