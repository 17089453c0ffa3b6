"""The one look of gradekit's HTML pages: the class report and the feedback pages.

Owns the style sheet, the font stack (Latin and Chinese: Noto Sans CJK where it
is installed), the jinja2 environment the pages are rendered with, and how a
page writes numbers: points rounded to two decimals ("16.93 / 20"), "1 point"
but "2 points", shares as whole percentages.

A page a student reads is rendered in their language: pass ``language`` and
``translate`` (the gettext function of :func:`gradekit.i18n.catalogs.translator`) to
:func:`render`; the templates mark their texts with ``{% trans %}`` and
``_()``. The class report is the instructor's and stays English.

Every page is self-contained: the style is inline, there are no fonts, scripts
or images to fetch, and a page reads the same with JavaScript off.
"""

from __future__ import annotations

import math

import jinja2

# Latin and Chinese from one family where Noto Sans CJK is installed (Debian: fonts-noto-cjk);
# the plots' SVG text names the same fonts, so they look like the page around them
FONT_STACK = (
    '"Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", "DejaVu Sans", sans-serif'
)

CSS = """
:root{--font:%(font)s;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;
--pass:#1a7f37;--fail:#cf222e;--wait:#9a6700;--accent:#0969da}
*{box-sizing:border-box}
body{font-family:var(--font);color:var(--ink);max-width:72rem;margin:0 auto;padding:1rem 1.25rem 3rem;
line-height:1.45}
nav.crumbs{font-size:.9rem;color:var(--muted);margin:.25rem 0 1rem}
nav.crumbs a{color:var(--accent)}
h1{font-size:1.6rem;margin:.2rem 0 .3rem} h2{font-size:1.25rem;margin:0 0 .5rem}
h3{font-size:1.05rem;margin:1rem 0 .4rem}
a{color:var(--accent)}
.sub{color:var(--muted);margin:0 0 1rem}
.gid{font-size:.75rem;color:var(--muted);font-weight:normal;font-family:ui-monospace,monospace;margin-left:.4rem}
.pass{color:var(--pass)} .fail{color:var(--fail)} .wait{color:var(--wait)} .muted{color:var(--muted)}
section.card{border:1px solid var(--line);border-radius:8px;padding:.8rem 1.1rem;margin:1rem 0;background:#fff}
.note{background:#fff8c5;padding:.5rem .9rem;border-left:4px solid #d4a72c;border-radius:4px;margin:.6rem 0}
.diagnosis{background:#ffebe9;padding:.4rem .8rem;border-left:4px solid var(--fail);border-radius:4px;margin:.5rem 0}
.big{font-size:1.5rem;font-weight:600}
pre{background:var(--soft);padding:.6rem;overflow-x:auto;font-size:.85rem;border-radius:6px}
table{border-collapse:collapse;margin:.4rem 0;font-size:.9rem}
th,td{border-bottom:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.stats{display:flex;flex-wrap:wrap;gap:.6rem;margin:.4rem 0 .8rem}
.stat{border:1px solid var(--line);border-radius:8px;padding:.4rem .8rem;min-width:7.5rem;background:var(--soft)}
.stat b{display:block;font-size:1.3rem}
figure{margin:.8rem 0 1.2rem} figcaption{font-weight:600;margin-bottom:.3rem}
figure svg{max-width:100%%;height:auto;display:block}
figure p.alt{color:var(--muted);font-size:.85rem;margin:.3rem 0}
details{margin:.3rem 0} summary{cursor:pointer;color:var(--accent)}
.flag{display:inline-block;font-size:.75rem;border-radius:1rem;padding:0 .5rem;margin:0 .15rem .15rem 0;
background:#ffebe9;color:var(--fail);white-space:nowrap}
.flag.ok{background:#dafbe1;color:var(--pass)}
.scroll{overflow-x:auto}
ul.checks{padding-left:1.2rem} ul.checks li{margin:.2rem 0}
ul.checks ul.cases{margin:.1rem 0 .3rem;padding-left:1.2rem;color:var(--muted);font-size:.92em}
th[data-sort]{cursor:pointer}
th[aria-sort=ascending]::after{content:" ▲"} th[aria-sort=descending]::after{content:" ▼"}
""" % {"font": FONT_STACK}  # noqa: UP031 - a style sheet is all braces: % reads better


def points(value: float | None) -> str:
    """A score as people write it: at most two decimals, no trailing zeros (16.9333 -> "16.93")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def signed_points(value: float) -> str:
    """Points added or taken off, with their sign: "+1", "−0.5" (−0 for nothing taken off)."""
    return ("−" if math.copysign(1.0, value) < 0 else "+") + points(abs(value))


def points_phrase(value: float, translate=None) -> str:
    """ "1 point", "2 points", "1.5 points": the unit with its number (in the language of ``translate``)."""
    from gradekit.i18n import _
    from gradekit.i18n.text import render as render_text

    text = _("1 point") if points(value) == "1" else _("{n} points").format(n=points(value))
    return render_text(text, translate) if translate is not None else str(text)


@jinja2.pass_context
def _points_phrase(context, value: float) -> str:
    return points_phrase(value, context.get("gettext"))


def percent(share: float | None) -> str:
    """A share (0..1) as a whole percentage: 0.314 -> "31%"."""
    if share is None:
        return "–"
    return f"{100 * share:.0f}%"


def to_the_second(timestamp: str | None) -> str:
    """A stored submission time to the second ("2026-11-30 11:40:07 UTC", not nbgrader's
    microseconds; not to the minute, which could show a late submission at its deadline);
    anything else as it is."""
    from gradekit.untrusted import timestamp_value

    when = timestamp_value(timestamp)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else (timestamp or "")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gradekit", "pages/templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    # English, unless a page is rendered with a language's gettext (jinja2.ext.i18n adds the method)
    env.install_null_translations()  # type: ignore[attr-defined]
    env.filters["points"] = points
    env.filters["points_phrase"] = _points_phrase
    env.filters["percent"] = percent
    env.filters["to_the_second"] = to_the_second
    env.globals["css"] = CSS
    env.globals["font_stack"] = FONT_STACK
    return env


_ENV: jinja2.Environment | None = None


def render(template: str, language: str = "en", translate=None, **context) -> str:
    """Render one of gradekit/pages/templates/ with the shared look, in ``language`` (its gettext
    function ``translate``; see the module's docstring)."""
    global _ENV
    if _ENV is None:
        _ENV = environment()
    if translate is not None:
        context.update(gettext=translate, _=translate, ngettext=lambda one, many, n: translate(one if n == 1 else many))
    context.setdefault("lang", HTML_LANG.get(language, language))
    return _ENV.get_template(template).render(**context)


HTML_LANG = {"en": "en", "zh": "zh-CN"}  # the page's lang attribute: Chinese glyphs in the CJK font
