"""The report's plots: Vega-Lite specifications, drawn as inline SVG in Python (:mod:`.svg`).

The specs are plain dicts in Vega-Lite's grammar (altair would build the same, but importing it
takes 2-4.6 s here, most of the report's budget), so a plot says what it shows in a standard form,
and :mod:`gradekit.pages.report.svg` draws the part of the grammar they use. Before, vl-convert
drew them with its bundled V8 engine: 84 MB on every server, ~1 s to start, and none at all under
an address-space limit (``ulimit -v``, common on shared login nodes), where the report kept its
tables but drew no plot. Drawn in Python, a plot costs a millisecond or two and needs nothing but
the standard library.

Every plot is a :class:`Plot`: a title, a text alternative (one sentence of what it shows), the
data table behind it, and the SVG. The counts in the table are exactly the marks drawn: one bar
(or point) per row, each with ``role="graphics-symbol"`` and an ``aria-label`` of its data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradekit.pages.look import percent, points

# a generic family: the browser draws it with its own fallback for Chinese (the page's fonts)
_SVG_FONT = "sans-serif"
LABEL = 70  # characters of a category label; longer ones are cut with "…" here
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


def render(plots: list[Plot]) -> list[Plot]:
    """Fill in each plot's SVG (a plot with no rows keeps none: its table says there is nothing)."""
    from gradekit.pages.report.svg import draw

    for plot in plots:
        if plot.rows:
            plot.svg = draw(plot.spec).replace("<svg ", f'<svg aria-labelledby="{plot.key}-title {plot.key}-alt" ', 1)
    return plots


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


def all_plots(report: dict) -> list[Plot]:
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
