"""A Chinese student's feedback page, opened in a real browser (Playwright driving Debian's chromium).

One student, listed as ``zh`` in languages.csv, hands in the answer key with a
classic mistake (no value projection) and nothing for the quiz; the installed
commands grade the class and write the feedback. The page must be Chinese --
its chrome, the exercise titles, the check names, the named mistake -- and
every character must be drawn from a real font: Chromium's own font report
(the DevTools protocol's platform fonts) names Noto Sans CJK for the Chinese
text, and no character is drawn as the missing-glyph box.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ASSIGNMENT, VENV_BIN, CourseDir, known_sources, with_solutions

pytestmark = [pytest.mark.e2e]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

# Draws each character with the page's own font stack and compares it with the drawing of a
# code point no font has (U+10FFFD, private use): equal pixels mean a missing-glyph box.
TOFU = """(chars) => {
  const font = '32px ' + getComputedStyle(document.body).fontFamily;
  const canvas = document.createElement('canvas'); canvas.width = 48; canvas.height = 48;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (ch) => { ctx.clearRect(0, 0, 48, 48); ctx.font = font; ctx.fillText(ch, 4, 38);
                          return Array.from(ctx.getImageData(0, 0, 48, 48).data).join(','); };
  const box = draw(String.fromCodePoint(0x10FFFD));
  return chars.filter(ch => draw(ch) === box);
}"""


@pytest.fixture(scope="module")
def zh_page(tmp_path_factory):
    course = CourseDir.create(tmp_path_factory.mktemp("zh") / "course", ("lin",), quiz=True)
    (course.root / "languages.csv").write_text("student_id,language\nlin,zh\n", encoding="utf-8")
    course.generate()
    key = course.answer_key("lin")
    course.submit("lin", with_solutions(key, known_sources("mistakes/attention_no_value_projection")))
    gradekit = str(VENV_BIN / "gradekit")
    course.run(gradekit, "autograde", ASSIGNMENT, "--jobs", "1")
    course.run(gradekit, "feedback", ASSIGNMENT)
    return course.root / "feedback" / "lin" / ASSIGNMENT / "self_attention.html"


@pytest.fixture(scope="module")
def page(zh_page, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(zh_page.as_uri())
    tab.wait_for_load_state("load")
    tab.errors = errors
    yield tab
    context.close()


def test_the_page_is_chinese(page):
    assert page.errors == []
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.inner_text("h1") == "从零实现自注意力"     # the notebook's own title, in Chinese
    summary = page.inner_text("#summary")
    assert re.search(r"得分：\d+(\.\d{1,2})? / 20", summary), summary
    assert "1. 三个投影" in summary and "练习" in summary
    section = page.inner_text("section#test_self_attention")
    assert section.startswith("5. 把自注意力拼起来")
    assert "可能的错误：没有值投影" in section and "Likely mistake" not in section
    assert "你的手算例子" in page.inner_text("section#test_scaled_scores")   # a check's name
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "feedback-zh.png"), full_page=True)


def _platform_fonts(page, selector: str) -> dict[str, int]:
    """The fonts Chromium drew the text of ``selector`` with: family -> glyph count."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    fonts: dict[str, int] = {}
    for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
            fonts[font["familyName"]] = fonts.get(font["familyName"], 0) + font["glyphCount"]
    cdp.detach()
    return fonts


def test_chinese_is_drawn_with_noto_sans_cjk(page):
    fonts = _platform_fonts(page, "h1, h2, p, td, th, li, span, summary")
    cjk = {family: n for family, n in fonts.items() if "CJK" in family}
    assert cjk and sum(cjk.values()) > 200, fonts


def test_no_character_is_a_missing_glyph_box(page):
    text = page.inner_text("body")
    chars = sorted({ch for ch in text if ord(ch) > 0x7F and not ch.isspace()})
    assert len(chars) > 100                              # the page is really Chinese
    assert page.evaluate(TOFU, chars) == []
    # the detector sees a box where there is one: characters no installed font has
    assert page.evaluate(TOFU, ["\U0010FFFC", "\U000E01EF"]) != []
