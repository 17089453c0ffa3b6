"""The report's Vega-Lite specs drawn as SVG in plain Python: no JavaScript engine, no browser, no fetch.

The report's plots are written as Vega-Lite specifications (:mod:`gradekit.pages.report.plots`);
this module draws the part of Vega-Lite they use, and refuses anything else with a ValueError
(a new plot that needs more fails its test, never a class's report):

* ``bar`` with a binned ``x`` and ``x2`` (a histogram), counted on ``y``;
* ``bar`` with a nominal ``y`` (one band a row, in the data's order) and a quantitative ``x``,
  stacked by a nominal ``color`` in the ``order`` field's order, with a legend;
* ``point`` with a quantitative ``x`` and ``y``;
* scales with a ``domain``, axes with ``title``, ``values`` and ``format`` ``"%"`` or ``"d"``.

The SVG reads as Vega's own does for assistive technology and tests: the marks sit in a
``<g class="role-mark">``, each with ``role="graphics-symbol"`` and an ``aria-label`` that says its
data ("score 18–19: 7 students"); the axes and the legend are ``aria-hidden``, since the page's
text alternative and data table say the same. Text stays ``<text>``, so the page's fonts draw
Chinese. Labels are measured by an estimate (0.6 em a Latin character, 1 em a wide one), as
the browser cannot be asked.

Why not vl-convert (which drew these specs until it was replaced): its V8 engine is 84 MB on
every server that writes a report, and under an address-space limit (``ulimit -v``, common on
shared login nodes) it cannot start at all, so the report had no plots there.
"""

from __future__ import annotations

import math
import unicodedata
from html import escape

FONT_SIZE = 11
AXIS_COLOR = "#6e7781"
GRID_COLOR = "#d0d7de"
TICK = 5


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """An estimate of ``text``'s width in pixels at ``size``: wide (CJK) characters 1 em, others 0.6."""
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else 0.6 * size for ch in text)


def draw(spec: dict) -> str:
    """The SVG of a Vega-Lite spec of the subset above."""
    mark = spec["mark"] if isinstance(spec["mark"], dict) else {"type": spec["mark"]}
    enc = spec["encoding"]
    chart: _Chart
    if mark["type"] == "bar" and enc.get("x", {}).get("bin", {}).get("binned"):
        chart = _Histogram(spec, mark)
    elif mark["type"] == "bar" and enc.get("y", {}).get("type") == "nominal":
        chart = _Bars(spec, mark)
    elif mark["type"] == "point":
        chart = _Points(spec, mark)
    else:
        raise ValueError(f"a Vega-Lite spec this renderer does not draw: mark {mark['type']!r}, {sorted(enc)}")
    return chart.svg()


# -- scales and axes -----------------------------------------------------------------------


class _Linear:
    def __init__(self, domain: list[float], lo: float, hi: float):
        self.d0, self.d1 = float(domain[0]), float(domain[1])
        if self.d1 == self.d0:
            self.d1 = self.d0 + 1
        self.lo, self.hi = lo, hi

    def __call__(self, value: float) -> float:
        t = (float(value) - self.d0) / (self.d1 - self.d0)
        return self.lo + min(max(t, 0.0), 1.0) * (self.hi - self.lo)


def nice_ticks(d0: float, d1: float, count: int = 5) -> list[float]:
    """Round tick values across [d0, d1]: steps of 1, 2 or 5 times a power of ten, about ``count``."""
    span = d1 - d0
    if span <= 0:
        return [d0]
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(d0 / step - 1e-9)
    return [round(i * step, 10) for i in range(first, int(math.floor(d1 / step + 1e-9)) + 1)]


def _fmt(value: float, form: str | None) -> str:
    if form == "%":
        return f"{value * 100:.0f}%"
    if form == "d" or float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:g}"


def _domain(channel: dict, values: list[float]) -> list[float]:
    """The scale's domain: the spec's, or from 0 to the largest value."""
    scale = channel.get("scale", {})
    return list(scale["domain"]) if "domain" in scale else [0, max(values, default=0) or 1]


def _ticks(channel: dict, domain: list[float]) -> list[float]:
    axis = channel.get("axis") or {}
    return list(axis["values"]) if "values" in axis else nice_ticks(domain[0], domain[1])


def _text(x: float, y: float, text: str, anchor: str = "middle", more: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{FONT_SIZE}" {more}>{escape(text)}</text>'


# -- the charts ----------------------------------------------------------------------------


class _Chart:
    def __init__(self, spec: dict, mark: dict):
        self.spec, self.mark, self.enc = spec, mark, spec["encoding"]
        self.values: list[dict] = spec["data"]["values"]
        self.w, self.h = spec.get("width", 400), spec.get("height", 200)
        self.pad = spec.get("padding", 5)
        config = spec.get("config", {})
        self.font = config.get("font", "sans-serif")
        self.background = config.get("background", "white")
        for channel, field in self.enc.items():
            if channel not in ("x", "x2", "y", "color", "order"):
                raise ValueError(f"a Vega-Lite channel this renderer does not draw: {channel}")
            if isinstance(field, dict) and "aggregate" in field:
                raise ValueError("aggregates are not drawn: compute the values in Python")

    def title(self, channel: str) -> str | None:
        return self.enc[channel].get("title", self.enc[channel].get("field"))

    def label(self, row: dict) -> str:
        """What a mark says to a screen reader: each encoded field's title and value."""
        parts = []
        for channel in ("y", "x", "color") if self.enc["y"].get("type") == "nominal" else ("x", "y", "color"):
            if channel not in self.enc:
                continue
            c = self.enc[channel]
            value = row[c["field"]]
            form = (c.get("axis") or {}).get("format")
            shown = _fmt(value, form) if isinstance(value, int | float) and c.get("type") == "quantitative" else value
            if channel == "x" and "x2" in self.enc:  # a bin: from–to
                shown = f"{shown}–{_fmt(row[self.enc['x2']['field']], form)}"
            name = c.get("title") or c["field"]
            parts.append(f"{name}: {shown}")
        return "; ".join(parts)

    def svg(self) -> str:
        left, right, top, bottom, body = self.layout()
        width, height = left + self.w + right + 2 * self.pad, top + self.h + bottom + 2 * self.pad
        ox, oy = self.pad + left, self.pad + top
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="marks" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="graphics-document" font-family="{escape(self.font)}">'
            f'<rect width="{width:.0f}" height="{height:.0f}" fill="{self.background}"/>'
            f'<g transform="translate({ox:.1f},{oy:.1f})">{body}</g></svg>'
        )

    def layout(self) -> tuple[float, float, float, float, str]:
        raise NotImplementedError

    def x_axis(self, scale: _Linear, channel: dict, ticks: list[float]) -> str:
        form = (channel.get("axis") or {}).get("format")
        out = [f'<line x1="0" y1="{self.h}" x2="{self.w}" y2="{self.h}" stroke="{AXIS_COLOR}"/>']
        for t in ticks:
            x = scale(t)
            out.append(f'<line x1="{x:.1f}" y1="{self.h}" x2="{x:.1f}" y2="{self.h + TICK}" stroke="{AXIS_COLOR}"/>')
            out.append(_text(x, self.h + TICK + FONT_SIZE + 1, _fmt(t, form)))
        title = channel.get("title", channel.get("field"))
        if title:
            out.append(_text(self.w / 2, self.h + TICK + 2 * FONT_SIZE + 10, title, more='font-weight="bold"'))
        return f'<g class="role-axis" aria-hidden="true">{"".join(out)}</g>'

    def y_axis(self, scale: _Linear, channel: dict, ticks: list[float], label_width: float) -> str:
        form = (channel.get("axis") or {}).get("format")
        out = [f'<line x1="0" y1="0" x2="0" y2="{self.h}" stroke="{AXIS_COLOR}"/>']
        for t in ticks:
            y = scale(t)
            out.append(f'<line x1="0" y1="{y:.1f}" x2="{self.w}" y2="{y:.1f}" stroke="{GRID_COLOR}"/>')
            out.append(f'<line x1="{-TICK}" y1="{y:.1f}" x2="0" y2="{y:.1f}" stroke="{AXIS_COLOR}"/>')
            out.append(_text(-TICK - 2, y + FONT_SIZE / 3, _fmt(t, form), anchor="end"))
        title = channel.get("title", channel.get("field"))
        if title:
            x = -TICK - 2 - label_width - 8
            out.append(
                _text(x, self.h / 2, title, more=f'font-weight="bold" transform="rotate(-90 {x:.1f} {self.h / 2:.1f})"')
            )
        return f'<g class="role-axis" aria-hidden="true">{"".join(out)}</g>'

    def marks(self, shapes: list[str], kind: str) -> str:
        head = f'<g class="role-mark" role="graphics-object" aria-roledescription="{kind} mark container">'
        return head + "".join(shapes) + "</g>"

    def symbol(self, tag: str, attrs: str, kind: str, row: dict) -> str:
        return (
            f'<{tag} {attrs} role="graphics-symbol" aria-roledescription="{kind}" '
            f'aria-label="{escape(self.label(row))}"/>'
        )


class _Histogram(_Chart):
    def layout(self):
        x, y = self.enc["x"], self.enc["y"]
        ends = [float(r[self.enc["x2"]["field"]]) for r in self.values]
        xs = _Linear(_domain(x, ends), 0, self.w)
        ydomain = _domain(y, [float(r[y["field"]]) for r in self.values])
        ys = _Linear(ydomain, self.h, 0)
        yticks = _ticks(y, ydomain)
        label_width = max((text_width(_fmt(t, (y.get("axis") or {}).get("format"))) for t in yticks), default=0)
        gap = self.mark.get("binSpacing", 1)
        color = self.mark.get("color", "#4c78a8")
        bars = []
        for row in self.values:
            x0, x1 = xs(row[x["field"]]), xs(row[self.enc["x2"]["field"]])
            top = ys(row[y["field"]])
            attrs = (
                f'x="{x0 + gap / 2:.1f}" y="{top:.1f}" width="{max(x1 - x0 - gap, 0.5):.1f}" '
                f'height="{max(self.h - top, 0):.1f}" fill="{color}"'
            )
            bars.append(self.symbol("rect", attrs, "bar", row))
        body = (
            self.y_axis(ys, y, yticks, label_width)
            + self.x_axis(xs, x, nice_ticks(xs.d0, xs.d1))
            + self.marks(bars, "bar")
        )
        left = TICK + 2 + label_width + 8 + FONT_SIZE + 4
        return left, 8, FONT_SIZE, TICK + 2 * FONT_SIZE + 14, body


class _Bars(_Chart):
    def layout(self):
        x, y = self.enc["x"], self.enc["y"]
        color = self.enc.get("color")
        order = self.enc.get("order", {}).get("field")
        categories: list[str] = []
        for row in self.values:
            if row[y["field"]] not in categories:
                categories.append(row[y["field"]])
        totals = {c: 0.0 for c in categories}
        for row in self.values:
            totals[row[y["field"]]] += float(row[x["field"]])
        xdomain = _domain(x, list(totals.values()))
        xs = _Linear(xdomain, 0, self.w)
        band = self.h / max(len(categories), 1)
        label_width = max((text_width(str(c)) for c in categories), default=0)
        fills = self._fills(color)
        stacked: dict[str, float] = {c: 0.0 for c in categories}
        rows = sorted(self.values, key=lambda r: r.get(order, 0)) if order else self.values
        bars = []
        for row in rows:
            cat = row[y["field"]]
            start = stacked[cat] if color else 0.0
            end = start + float(row[x["field"]])
            stacked[cat] = end
            x0, x1 = xs(start), xs(end)
            top = categories.index(cat) * band + band * 0.05
            fill = fills[row[color["field"]]] if color else self.mark.get("color", "#4c78a8")
            attrs = (
                f'x="{x0:.1f}" y="{top:.1f}" width="{max(x1 - x0, 0.5):.1f}" height="{band * 0.9:.1f}" fill="{fill}"'
            )
            bars.append(self.symbol("rect", attrs, "bar", row))
        labels = "".join(
            _text(-TICK - 2, (i + 0.5) * band + FONT_SIZE / 3, str(c), anchor="end") for i, c in enumerate(categories)
        )
        axis_y = (
            f'<g class="role-axis" aria-hidden="true"><line x1="0" y1="0" x2="0" y2="{self.h}" '
            f'stroke="{AXIS_COLOR}"/>{labels}</g>'
        )
        grid = "".join(
            f'<line x1="{xs(t):.1f}" y1="0" x2="{xs(t):.1f}" y2="{self.h}" stroke="{GRID_COLOR}"/>'
            for t in _ticks(x, xdomain)
        )
        body = (
            f'<g aria-hidden="true">{grid}</g>'
            + axis_y
            + self.x_axis(xs, x, _ticks(x, xdomain))
            + self.marks(bars, "bar")
        )
        right: float = 8
        if color:
            legend, width = self._legend(color, fills)
            body += legend
            right += width
        return TICK + 2 + label_width, right, FONT_SIZE, TICK + 2 * FONT_SIZE + 14, body

    def _fills(self, color: dict | None) -> dict[str, str]:
        if not color:
            return {}
        scale = color.get("scale", {})
        domain = scale.get("domain") or sorted({r[color["field"]] for r in self.values})
        palette = scale.get("range") or ["#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b"]
        return {value: palette[i % len(palette)] for i, value in enumerate(domain)}

    def _legend(self, color: dict, fills: dict[str, str]) -> tuple[str, float]:
        x0 = self.w + 18
        out = [_text(x0, FONT_SIZE, color.get("title", color["field"]), anchor="start", more='font-weight="bold"')]
        for i, (value, fill) in enumerate(fills.items()):
            y = FONT_SIZE + 8 + i * (FONT_SIZE + 6)
            out.append(f'<rect x="{x0}" y="{y:.1f}" width="10" height="10" fill="{fill}"/>')
            out.append(_text(x0 + 15, y + 9, str(value), anchor="start"))
        width = 18 + 15 + max([text_width(str(v)) for v in fills] + [text_width(color.get("title", ""))])
        return f'<g class="role-legend" aria-hidden="true">{"".join(out)}</g>', width


class _Points(_Chart):
    def layout(self):
        x, y = self.enc["x"], self.enc["y"]
        xdomain = _domain(x, [float(r[x["field"]]) for r in self.values])
        ydomain = _domain(y, [float(r[y["field"]]) for r in self.values])
        xs, ys = _Linear(xdomain, 0, self.w), _Linear(ydomain, self.h, 0)
        yticks = _ticks(y, ydomain)
        label_width = max((text_width(_fmt(t, (y.get("axis") or {}).get("format"))) for t in yticks), default=0)
        radius = math.sqrt(self.mark.get("size", 30) / math.pi)
        color = self.mark.get("color", "#4c78a8")
        paint = f'fill="{color}"' if self.mark.get("filled") else f'fill="none" stroke="{color}" stroke-width="2"'
        dots = []
        for r in self.values:
            at = f'cx="{xs(r[x["field"]]):.1f}" cy="{ys(r[y["field"]]):.1f}" r="{radius:.1f}" {paint}'
            dots.append(self.symbol("circle", at, "point", r))
        body = (
            self.y_axis(ys, y, yticks, label_width) + self.x_axis(xs, x, _ticks(x, xdomain)) + self.marks(dots, "point")
        )
        left = TICK + 2 + label_width + 8 + FONT_SIZE + 4
        return left, 8, FONT_SIZE, TICK + 2 * FONT_SIZE + 14, body
