"""The class report's page: gradekit/templates/report.html in the look of :mod:`gradekit.page`."""

from __future__ import annotations

from .. import page as look
from . import stats


def page(report: dict, plots: list, columns: dict[str, str]) -> str:
    scores = report["scores"]
    summaries = [("total", scores["total"], scores["possible"])]
    summaries += [(nb["notebook"], nb, nb["possible"]) for nb in scores["notebooks"]]

    def feedback(student: str, notebook: str) -> str:
        return f"../../feedback/{student}/{report['assignment']}/{notebook}.html"

    limits = {"hard": stats.TOO_HARD, "easy": stats.TOO_EASY, "weak": stats.WEAK_DISCRIMINATION,
              "min_n": stats.MIN_FOR_DISCRIMINATION}
    return look.render("report.html", r=report, c=report["class"], plots=plots, summaries=summaries,
                       notebooks=[nb["notebook"] for nb in scores["notebooks"]], columns=columns,
                       limits=limits, feedback=feedback)
