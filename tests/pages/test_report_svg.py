"""The report's Vega-Lite specs drawn as SVG in Python: one mark a data row, read as Vega's own."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from gradekit.pages.report import plots
from gradekit.pages.report.svg import draw, nice_ticks, text_width

NS = "{http://www.w3.org/2000/svg}"


def _marks(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(f"{NS}g") if g.get("class") == "role-mark"]
    assert len(groups) == 1
    return [e for e in groups[0] if e.get("role") == "graphics-symbol"]


def test_a_histogram_draws_a_bar_per_bin_as_tall_as_its_count():
    hist = [{"from": 0, "to": 5, "count": 2}, {"from": 5, "to": 10, "count": 4}, {"from": 10, "to": 15, "count": 0}]
    plot = plots.score_histogram("total", "Total", hist, 15)
    bars = _marks(draw(plot.spec))
    assert len(bars) == plot.marks == 3
    heights = [float(b.get("height")) for b in bars]
    assert heights[1] == pytest.approx(2 * heights[0]) and heights[2] == 0
    xs = [float(b.get("x")) for b in bars]
    assert xs == sorted(xs)
    assert bars[1].get("aria-label") == "score: 5–10; students: 4"


def test_stacked_options_add_up_to_the_item_and_the_legend_names_each():
    checks = [{"item": "mc_scaling", "n": 5, "options": [
        {"kind": "right", "option": "A", "count": 3, "share": 0.6},
        {"kind": "distractor", "option": "divides by d", "count": 2, "share": 0.4}]},
        {"item": "mc_axis", "n": 5, "options": [{"kind": "right", "option": "B", "count": 5, "share": 1.0}]}]
    plot = plots.concept_options(checks)
    svg = draw(plot.spec)
    bars = _marks(svg)
    assert len(bars) == plot.marks == 3
    first = [b for b in bars if "mc_scaling" in b.get("aria-label")]
    whole = next(b for b in bars if "mc_axis" in b.get("aria-label"))
    assert sum(float(b.get("width")) for b in first) == pytest.approx(float(whole.get("width")), abs=0.2)
    assert float(first[1].get("x")) == pytest.approx(float(first[0].get("x")) + float(first[0].get("width")), abs=0.2)
    assert "wrong option 1" in svg and "right answer" in svg


def test_points_sit_where_their_values_say():
    items = [{"grade_id": "a", "notebook": "nb", "mean_share": 0.0, "item_rest_r": -1.0},
             {"grade_id": "b", "notebook": "nb", "mean_share": 1.0, "item_rest_r": 1.0}]
    dots = _marks(draw(plots.discrimination(items).spec))
    (x0, y0), (x1, y1) = [(float(d.get("cx")), float(d.get("cy"))) for d in dots]
    assert x0 < x1 and y0 > y1     # up is a higher correlation


def test_labels_are_escaped_text_that_the_page_fonts_draw():
    bars = plots.misconception_bars([{"exercise": "1. <One>", "mistakes": [{"mistake": "除以 d & 忘了", "count": 2}]}])
    svg = draw(bars.spec)
    ET.fromstring(svg)     # well-formed
    assert "&lt;One&gt;" in svg and "除以 d &amp; 忘了" in svg and "<path" not in svg
    assert text_width("忘了") == pytest.approx(2 * text_width("ab") / 1.2)


def test_a_spec_outside_the_subset_is_refused():
    with pytest.raises(ValueError, match="does not draw"):
        draw({"mark": "line", "encoding": {"x": {"field": "t"}}, "data": {"values": []}})
    spec = plots.score_histogram("t", "t", [{"from": 0, "to": 1, "count": 1}], 1).spec
    spec["encoding"]["size"] = {"field": "count"}
    with pytest.raises(ValueError, match="channel"):
        draw(spec)


def test_ticks_are_round():
    assert nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(0, 20) == [0, 5, 10, 15, 20]
    assert nice_ticks(0, 7) == [0, 2, 4, 6]


def test_every_plot_of_a_report_carries_its_labels():
    report = {"scores": {"possible": 4, "total": {"histogram": [{"from": 0, "to": 2, "count": 1},
                                                               {"from": 2, "to": 4, "count": 2}]},
                         "notebooks": []},
              "items": [{"grade_id": "a", "notebook": "nb", "mean_share": 0.5, "item_rest_r": 0.3}],
              "misconceptions": [], "concept_checks": [],
              "health": {"histogram": [{"from": 0, "to": 0.5, "count": 3}]}}
    drawn = plots.all_plots(report)
    for plot in drawn:
        if plot.rows:
            assert plot.svg.startswith(f'<svg aria-labelledby="{plot.key}-title {plot.key}-alt" ')
            assert len(re.findall('role="graphics-symbol"', plot.svg)) == plot.marks
        else:
            assert plot.svg == ""
