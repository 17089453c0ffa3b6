"""The report's plots: Vega-Lite specifications rendered to inline SVG by vl-convert.

The choice, measured on this project's machine (2 cores, 2026-11-30):

* **Vega-Lite through vl-convert-python**, the specs written as plain dicts.
  vl-convert bundles Vega/Vega-Lite and a JavaScript engine in one wheel: no
  browser, no Node, no network at render time. ``import vl_convert`` takes
  10 ms; the first chart ~0.7-1 s (the engine starts), each further one
  30-100 ms. Its SVG keeps text as ``<text>`` (so the page's fonts draw
  Chinese) and gives every mark ``role="graphics-symbol"`` and an
  ``aria-label`` with its data ("from: 18; count: 7"): screen readers can
  read the bars, and the browser test counts them.
* altair would build the same specs, but importing it takes 2-4.6 s here
  (jsonschema, narwhals): most of the 5 s budget for a 1,000-student report.
  The specs are small enough to write by hand; altair is not needed.
* matplotlib's SVG: 0.6 s to import, ~120 ms a figure, text drawn as paths by
  default (no Chinese without a CJK font configured in matplotlib) and marks
  that are anonymous ``<path>`` elements.

Under an address-space limit (``ulimit -v``, common on shared login nodes)
vl-convert's engine cannot reserve its heap and the process dies of a native
trap -- even with a 40 GB limit. So when ``RLIMIT_AS`` is finite the plots are
drawn in a child process; if that child dies, the report keeps every plot's
title, text alternative and data table (open), without the SVG, and says why
in one line (:data:`Drawn.left_out`).

Every plot is a :class:`Plot`: a title, a text alternative (one sentence of
what it shows), the data table behind it, and the SVG. The counts in the table
are exactly the marks drawn: one bar (or point) per row.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field

from gradekit.pages.look import percent, points

# vl-convert measures text with the font it is given: a generic family is found at once, a list of
# named ones is searched for every label (0.25 s against 0.55 s a chart here). The browser draws
# the same generic family (with its own fallback for Chinese), so labels measure as they render.
_SVG_FONT = "sans-serif"
LABEL = 70  # characters of a category label; longer ones are cut with "…" here, not by Vega
_IDS = itertools.count(1)
WIDTH, HEIGHT = 560, 170
COLORS = {"right": "#1a7f37", "other": "#8c959f"}
DISTRACTOR_COLORS = ["#cf222e", "#e16f24", "#bf8700", "#8250df", "#0969da", "#bc4c00"]


@dataclass
class Plot:
    key: str
    title: str
    alt: str
    columns: list[str]
    rows: list[list]
    spec: dict = field(repr=False, default_factory=dict)
    svg: str = ""

    @property
    def marks(self) -> int:
        """How many marks the plot draws: one per row of its table."""
        return len(self.rows)


def address_space_limit() -> int | None:
    """The process's address-space limit in bytes (``ulimit -v``), or None when there is none."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def warm_up() -> threading.Thread:
    """Start vl-convert's engine in a thread: its first chart costs ~0.7 s (more under load), which
    overlaps with reading the class's results this way (the engine runs outside the GIL). Under an
    address-space limit the engine is never started in this process (see the module's docstring)."""

    def start() -> None:
        if address_space_limit() is not None:
            return
        import vl_convert

        vl_convert.vegalite_to_svg(_spec([{"x": 1}], {"type": "point"}, {"x": {"field": "x", "type": "quantitative"}}))

    thread = threading.Thread(target=start, name="gradekit-vl-convert-warm-up", daemon=True)
    thread.start()
    return thread


class Drawn(list):
    """The plots, their SVGs filled in; ``left_out`` says why they have none, when they have none."""

    left_out: str | None = None


def render(plots: list[Plot]) -> Drawn:
    """Fill in each plot's SVG (ids made unique, so that several SVGs can share one page); in a child
    process under an address-space limit, and none at all if that child cannot draw them."""
    drawn = Drawn(plots)
    wanted = [plot for plot in plots if plot.rows]
    limit = address_space_limit()
    if limit is None:
        import vl_convert

        svgs = [vl_convert.vegalite_to_svg(plot.spec) for plot in wanted]
    else:
        svgs, drawn.left_out = _render_in_child([plot.spec for plot in wanted], limit)
    for plot, svg in zip(wanted, svgs, strict=False):  # no SVGs at all when they are left out
        plot.svg = _unique_ids(svg, f"p{next(_IDS)}-").replace(
            "<svg ", f'<svg aria-labelledby="{plot.key}-title {plot.key}-alt" ', 1
        )
    return drawn


CHILD = "from gradekit.pages.report.plots import _child; _child()"


def _render_in_child(specs: list[dict], limit: int) -> tuple[list[str], str | None]:
    """The SVGs of ``specs`` drawn by a child process, or none and why."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD], input=json.dumps(specs), capture_output=True, text=True, timeout=300
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        proc = None
        failure = f"the child that draws them failed ({exc})"
    if proc is not None and proc.returncode == 0:
        try:
            svgs = json.loads(proc.stdout)
            if isinstance(svgs, list) and len(svgs) == len(specs):
                return svgs, None
        except ValueError:
            pass
        failure = "the child that draws them answered nothing readable"
    elif proc is not None:
        code = proc.returncode
        failure = f"vl-convert's JavaScript engine died ({f'signal {-code}' if code < 0 else f'exit {code}'})"
    return [], (
        f"plots left out: {failure} under this address-space limit (ulimit -v {limit // 1024} KiB); "
        "every plot's data table is shown instead"
    )


def _child() -> None:
    """Draw the specs read from stdin, write their SVGs to stdout (both JSON lists)."""
    import vl_convert

    specs = json.load(sys.stdin)
    json.dump([vl_convert.vegalite_to_svg(spec) for spec in specs], sys.stdout)


def _unique_ids(svg: str, prefix: str) -> str:
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    return re.sub(r'(url\(#|href="#)([^")]+)', lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)


def _spec(values: list[dict], mark: dict, encoding: dict, height: int = HEIGHT, width: int = WIDTH) -> dict:
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": width,
        "height": height,
        "data": {"values": values},
        "mark": mark,
        "encoding": encoding,
        "padding": 8,
        "config": {
            "font": _SVG_FONT,
            "view": {"stroke": None},
            "background": "white",
            # labelLimit 0: Vega's own cutting measures each label many times (seconds a chart)
            "axis": {"labelFontSize": 11, "titleFontSize": 11, "labelLimit": 0},
        },
    }


# -- the plots ----------------------------------------------------------------------


def score_histogram(key: str, title: str, hist: list[dict], possible: float, unit: str = "students") -> Plot:
    values = [{"from": b["from"], "to": b["to"], "count": b["count"]} for b in hist]
    n = sum(b["count"] for b in hist)
    alt = f"Histogram of {n} {unit} by score out of {points(possible)}; {_mode(hist)}." if n else "No scores yet."
    spec = _spec(
        values,
        {"type": "bar", "color": "#0969da", "binSpacing": 1},
        {
            "x": {
                "field": "from",
                "type": "quantitative",
                "bin": {"binned": True},
                "title": "score",
                "scale": {"domain": [0, hist[-1]["to"] if hist else 1]},
            },
            "x2": {"field": "to"},
            "y": _count("count", unit, max((b["count"] for b in hist), default=0)),
        },
    )
    rows = [[f"{points(b['from'])}–{points(b['to'])}", b["count"]] for b in hist]
    return Plot(key, title, alt, ["score", unit], rows, spec)


def _mode(hist: list[dict]) -> str:
    """The most common range(s) of a histogram, in words; a tie names every range in it (up to three)."""
    most = max(b["count"] for b in hist)
    tops = [f"{points(b['from'])} to {points(b['to'])}" for b in hist if b["count"] == most]
    if len(tops) == 1:
        return f"the most common range is {tops[0]}, with {most}"
    named = ", ".join(tops[:3]) + (f" and {len(tops) - 3} more" if len(tops) > 3 else "")
    return f"{len(tops)} ranges are equally common, with {most} each: {named}"


def seconds_histogram(key: str, hist: list[dict]) -> Plot:
    plot = score_histogram(key, "Grading time per submission", hist, hist[-1]["to"] if hist else 0, unit="submissions")
    plot.spec["encoding"]["x"]["title"] = "seconds"
    plot.columns = ["seconds", "submissions"]
    n = sum(b["count"] for b in hist)
    slow = sum(b["count"] for b in hist if b["from"] >= 1)
    plot.alt = f"Histogram of the grading time of {n} submissions; {slow} took a second or more."
    return plot


def item_difficulty(items: list[dict]) -> Plot:
    shown = [i for i in items if i["mean_share"] is not None]
    values = [{"item": _clip(f"{i['notebook']}: {i['grade_id']}", LABEL), "mean": i["mean_share"]} for i in shown]
    hardest = min(shown, key=lambda i: i["mean_share"]) if shown else None
    alt = (
        ("Mean score of each of {n} graded cells as a share of its points; the hardest is {g} with {m}.").format(
            n=len(shown), g=hardest["grade_id"], m=percent(hardest["mean_share"])
        )
        if hardest
        else "No graded cells yet."
    )
    spec = _spec(
        values,
        {"type": "bar", "color": "#0969da"},
        {
            "y": {"field": "item", "type": "nominal", "sort": None, "title": None},
            "x": {
                "field": "mean",
                "type": "quantitative",
                "title": "mean score (share of the points)",
                "scale": {"domain": [0, 1]},
                "axis": {"format": "%"},
            },
        },
        height=max(60, 18 * len(values)),
    )
    rows = [[v["item"], percent(v["mean"])] for v in values]
    return Plot("items", "Mean score per graded cell", alt, ["cell", "mean"], rows, spec)


def discrimination(items: list[dict]) -> Plot:
    shown = [i for i in items if i["mean_share"] is not None and i["item_rest_r"] is not None]
    values = [{"item": i["grade_id"], "mean": i["mean_share"], "r": i["item_rest_r"]} for i in shown]
    low = [i["grade_id"] for i in shown if i["item_rest_r"] < 0.2]
    alt = (
        f"Difficulty against discrimination for {len(shown)} cells: mean score across, item-rest correlation up; "
        f"{len(low)} below 0.2."
    )
    spec = _spec(
        values,
        {"type": "point", "filled": True, "size": 70, "color": "#8250df"},
        {
            "x": {
                "field": "mean",
                "type": "quantitative",
                "title": "mean score (share of the points)",
                "scale": {"domain": [0, 1]},
                "axis": {"format": "%"},
            },
            "y": {"field": "r", "type": "quantitative", "title": "item-rest correlation", "scale": {"domain": [-1, 1]}},
        },
        height=220,
    )
    rows = [[v["item"], percent(v["mean"]), f"{v['r']:.2f}"] for v in values]
    return Plot("discrimination", "Difficulty and discrimination", alt, ["cell", "mean", "item-rest r"], rows, spec)


def _mistakes_alt(named: list[tuple[int, str, str]]) -> str:
    top = named[0][0]
    tied = sum(1 for count, _, _ in named if count == top)
    who = f"{top} student" + ("" if top == 1 else "s")
    head = f"The {len(named)} most common named mistakes by the number of students who made them; "
    if tied == 1:
        return head + f"first: {named[0][1]}, {who}."
    return head + f"{tied} share the most, {who} each, among them {named[0][1]}."


def misconception_bars(misconceptions: list[dict], limit: int = 15) -> Plot:
    named = [(m["count"], m["mistake"], e["exercise"]) for e in misconceptions for m in e["mistakes"]]
    named.sort(key=lambda t: (-t[0], t[2], t[1]))
    named = named[:limit]
    values = [{"mistake": _clip(f"{ex}: {mistake}", LABEL), "count": count} for count, mistake, ex in named]
    alt = _mistakes_alt(named) if named else "No named mistakes."
    spec = _spec(
        values,
        {"type": "bar", "color": "#cf222e"},
        {
            "y": {"field": "mistake", "type": "nominal", "sort": None, "title": None},
            "x": _count("count", "students", named[0][0] if named else 0),
        },
        height=max(40, 20 * len(values)),
        width=380,
    )
    rows = [[ex, mistake, count] for count, mistake, ex in named]
    return Plot("mistakes", "The most common named mistakes", alt, ["exercise", "mistake", "students"], rows, spec)


def concept_options(checks: list[dict]) -> Plot:
    values, rows = [], []
    for item in checks:
        rank = 0
        for option in item["options"]:
            if not option["count"]:
                continue
            if option["kind"] == "distractor":
                rank += 1
                label = f"wrong option {rank}"
            else:
                label = "right answer" if option["kind"] == "right" else "no answer / not an option"
            values.append(
                {
                    "item": _clip(item["item"], LABEL),
                    "option": label,
                    "count": option["count"],
                    "order": {"right": 0, "distractor": rank, "other": 99}[option["kind"]],
                }
            )
            rows.append(
                [item["item"], label, option["option"] if option["kind"] == "distractor" else "", option["count"]]
            )
    labels = sorted({v["option"] for v in values}, key=lambda s: (s != "right answer", s.startswith("no"), s))
    palette = [
        COLORS["right"]
        if s == "right answer"
        else COLORS["other"]
        if s.startswith("no")
        else DISTRACTOR_COLORS[(int(s.rsplit(" ", 1)[1]) - 1) % len(DISTRACTOR_COLORS)]
        for s in labels
    ]
    worst = min(checks, key=lambda c: c["options"][0]["share"] or 0) if checks else None
    alt = (
        (
            "How often each option of {n} multiple-choice items was chosen; the item answered right least "
            "often is {i} ({s})."
        ).format(n=len(checks), i=worst["item"], s=percent(worst["options"][0]["share"]))
        if worst
        else "No multiple-choice items."
    )
    spec = _spec(
        values,
        {"type": "bar"},
        {
            "y": {"field": "item", "type": "nominal", "sort": None, "title": None},
            "x": _count("count", "students", max((c["n"] for c in checks), default=0), stack="zero"),
            "color": {
                "field": "option",
                "type": "nominal",
                "title": "option",
                "scale": {"domain": labels, "range": palette},
            },
            "order": {"field": "order", "type": "quantitative"},
        },
        height=max(40, 24 * len(checks)),
        width=420,
    )
    return Plot(
        "concepts",
        "Options chosen in the concept checks",
        alt,
        ["item", "option", "the misconception it stands for", "students"],
        rows,
        spec,
    )


def _count(field: str, title: str, top: int, **more) -> dict:
    """A count's encoding, with whole-number ticks (Vega would put 0.5 students on the axis)."""
    step = max(1, -(-int(top) // 5))
    last = max(step, -(-int(top) // step) * step)
    return {
        "field": field,
        "type": "quantitative",
        "title": title,
        **more,
        "scale": {"domain": [0, last]},
        "axis": {"values": list(range(0, last + 1, step)), "format": "d"},
    }


def _clip(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def all_plots(report: dict) -> Drawn:
    scores = report["scores"]
    plots = [score_histogram("total", "Total scores", scores["total"]["histogram"], scores["possible"])]
    for nb in scores["notebooks"]:
        plots.append(
            score_histogram(f"nb-{nb['notebook']}", f"Scores in {nb['notebook']}", nb["histogram"], nb["possible"])
        )
    plots.append(item_difficulty(report["items"]))
    plots.append(discrimination(report["items"]))
    plots.append(misconception_bars(report["misconceptions"]))
    if report["concept_checks"]:
        plots.append(concept_options(report["concept_checks"]))
    plots.append(seconds_histogram("seconds", report["health"]["histogram"]))
    return render(plots)
