"""The course in two languages: texts, catalogs, languages.csv, and releases that differ in words only."""

from __future__ import annotations

import io
import re
import shutil
import tokenize

import pytest

from conftest import REPO

from gradekit.errors import TemplateError
from gradekit.i18n import N_, _, join
from gradekit.i18n.catalogs import languages
from gradekit.i18n.text import Say, View
from gradekit.authoring import translation
from gradekit.i18n.catalogs import translator

ASSIGNMENTS = sorted(p.parent.parent.name for p in (REPO / "source").glob("*/locale/zh.po"))
CJK = re.compile(r"[\u4e00-\u9fff]")


# -- texts ---------------------------------------------------------------------------------------

def test_a_text_is_its_english_and_renders_again_in_another_language():
    zh = {"{what}: wrong answer": "{what}：答案不对", "the keys": "键"}.get
    text = _("{what}: wrong answer").format(what=_("the keys"))
    assert text == "the keys: wrong answer" and isinstance(text, str)
    assert {text: 1}["the keys: wrong answer"] == 1            # a catalogue name is its English
    assert f"{text}!" == "the keys: wrong answer!"
    assert text.render(lambda m: zh(m) or m) == "键：答案不对"     # arguments in the same language
    assert N_("marked only") == "marked only" and type(N_("x")) is str


def test_a_phrase_carries_its_translations_and_a_say_stores_them():
    """phrase(): a text whose translations are beside it; a language's translator knows its language."""
    from gradekit.i18n.catalogs import translator
    from gradekit.i18n.text import Phrase, Say, phrase

    said = phrase("your values are {n} too big", zh="你的结果大了 {n}").format(n=_("a lot"))
    assert isinstance(said, Phrase) and said == "your values are a lot too big"
    zh = translator(None, None, "zh")
    assert zh.language == "zh" and said.render(zh).startswith("你的结果大了 ")
    assert said.render(translator(None, None, "en")) == "your values are a lot too big"
    assert said.render(lambda m: m) == "your values are a lot too big"  # a translate function of no language
    say = Say("zh", zh)
    assert say(said) == "your values are a lot too big" and say.table[str(said)].startswith("你的结果大了")
    untranslated = phrase("only English")
    assert untranslated.render(zh) == "only English"


def test_a_broken_translation_falls_back_to_english():
    text = _("{count} values differ").format(count=3)
    assert text.render(lambda m: "{cuont} 个值不同") == "3 values differ"


def test_joined_texts_render_part_by_part():
    joined = join("; ", [_("a"), _("b {n}").format(n=2)])
    assert joined == "a; b 2"
    assert joined.render({"a": "甲", "b {n}": "乙 {n}"}.get) == "甲；乙 2"   # full-width in Chinese


def test_joined_chinese_is_set_with_full_width_marks_and_no_spaces():
    zh = {"a: wrong": "甲：错", "b: wrong": "乙：错", "x.": "句一。", "y.": "句二。"}.get
    assert join("; ", [_("a: wrong"), _("b: wrong")]).render(lambda m: m) == "a: wrong; b: wrong"
    assert join("; ", [_("a: wrong"), _("b: wrong")]).render(lambda m: zh(m, m)) == "甲：错；乙：错"
    assert join(" ", [_("x."), _("y.")]).render(lambda m: zh(m, m)) == "句一。句二。"


def test_say_keeps_english_and_notes_translations_only_where_they_differ():
    say = Say("zh", lambda m: {"not answered": "没有作答", "{n} left": "剩下 {n} 个"}.get(m, m))
    assert say(_("not answered")) == "not answered"
    assert say(_("{n} left").format(n=4)) == "4 left"
    assert say("not answered") == "not answered"          # a plain string is looked up as a message id
    assert say("no such message") == "no such message"
    assert say.table == {"not answered": "没有作答", "4 left": "剩下 4 个"}
    assert Say("en", lambda m: "x")("not answered") == "not answered" and Say("en").table == {}


def test_a_view_shows_stored_english_in_the_students_language():
    view = View("zh", {"4 left": "剩下 4 个"}, lambda m: {"Score": "得分"}.get(m, m))
    assert view("4 left") == "剩下 4 个" and view("unknown") == "unknown"
    assert view(_("Score")) == "得分" and view(None) == ""


# -- languages.csv ---------------------------------------------------------------------------------

def _course_with(course_factory, text: str | None, language: str | None = None):
    course = course_factory(students=("alice",))
    if language:
        course.configure(language=language)
    if text is not None:
        (course.root / "languages.csv").write_text(text, encoding="utf-8")
    return course


def test_languages_csv_chooses_each_students_language(course_factory):
    from gradekit.authoring.languages import language_of

    course = _course_with(course_factory, "student_id,language\nalice,zh\nbob, EN \n\n# a comment\n")
    c = course.course
    assert (language_of(c, "alice"), language_of(c, "bob"), language_of(c, "carol")) == ("zh", "en", "en")
    course = _course_with(course_factory, "student_id,language\nalice,en\n", language="zh")
    assert (language_of(course.course, "alice"), language_of(course.course, "zoe")) == ("en", "zh")


@pytest.mark.parametrize("text, where, says", [
    ("id,lang\nalice,zh\n", ":1:", "header"),
    ("student_id,language\nalice,zh\nbob,fr\n", ":3:", "'fr' is not a language"),
    ("student_id,language\nalice,zh,extra\n", ":2:", "two columns"),
    ("student_id,language\n../x,zh\n", ":2:", "invalid student id"),
    ("student_id,language\nalice,zh\nalice,en\n", ":3:", "listed twice"),
])
def test_a_bad_row_of_languages_csv_is_one_line_naming_file_and_line(course_factory, capsys, text, where, says):
    course = _course_with(course_factory, text)
    assert course.cli("generate", "self_attention") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"languages.csv{where}" in err and says in err, err


def test_generate_warns_when_a_students_language_is_left_in_english(course_factory, capsys):
    """A student set to read zh gets English wherever the assignment's catalog says nothing:
    `generate` says so (one line per language, exit 0), and stays quiet for a complete catalog."""
    course = _course_with(course_factory, "student_id,language\nalice,zh\n")
    assert course.cli("generate", "self_attention") == 0
    assert "warning" not in capsys.readouterr().err                   # the shipped zh catalog is complete
    po = course.root / "source" / "self_attention" / "locale" / "zh.po"
    text = po.read_text(encoding="utf-8")
    first = re.search(r'\nmsgstr "(.+)"\n', text)
    po.write_text(text[:first.start()] + '\nmsgstr ""\n' + text[first.end():], encoding="utf-8")
    assert course.cli("generate", "self_attention") == 0
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("warning: 1 student(s) read zh") and "leaves 1 text(s) untranslated" in line, line
    po.unlink()
    po.with_suffix(".mo").unlink(missing_ok=True)
    assert course.cli("generate", "self_attention") == 0
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "self_attention has no source/self_attention/locale/zh.po" in line, line


def test_an_unknown_course_language_is_refused(course_factory, capsys):
    course = _course_with(course_factory, None, language="xx")
    assert course.cli("generate", "self_attention") == 2
    assert "c.Gradekit.language = 'xx'" in capsys.readouterr().err


# -- the catalogs ----------------------------------------------------------------------------------

def test_the_shipped_assignments_have_chinese():
    assert ASSIGNMENTS == ["long_context", "multi_head_attention", "self_attention"]
    assert "zh" in languages()


@pytest.mark.parametrize("assignment", [None, *ASSIGNMENTS])
def test_every_message_id_has_a_chinese_translation(assignment):
    """Extracted from the code as it is now: a new _("...") without a translation fails here, and so
    does an entry left fuzzy after its English changed, or one whose placeholders differ."""
    problems = translation.problems(REPO if assignment else None, assignment, "zh")
    assert problems == [], "\n".join(problems[:30])
    template = translation.messages(REPO if assignment else None, assignment)
    assert len([m for m in template if m.id]) > 50


def test_the_completeness_check_sees_missing_fuzzy_and_broken_entries(tmp_path):
    from babel.messages.pofile import read_po, write_po

    root = tmp_path / "course"
    for part in ("source", "autograder", "solutions"):
        shutil.copytree(REPO / part / "self_attention", root / part / "self_attention")
    po = root / "source" / "self_attention" / "locale" / "zh.po"
    catalog = read_po(po.open("rb"), locale="zh")
    ids = [m.id for m in catalog if m.id]
    catalog[ids[0]].string = ""
    catalog[ids[1]].flags.add("fuzzy")
    placeholder = next(i for i in ids if "{what}" in i)
    catalog[placeholder].string = catalog[placeholder].string.replace("{what}", "{waht}")
    write_po(po.open("wb"), catalog)
    problems = translation.problems(root, "self_attention", "zh")
    assert len(problems) == 3
    endings = ("not translated", "fuzzy (the English changed: check the translation)",
               "the placeholders differ from the English")
    assert all(p.endswith(e) for p, e in zip(problems, endings)), problems


def test_a_new_text_in_a_grader_is_missing_until_translated(tmp_path):
    root = tmp_path / "course"
    for part in ("source", "autograder", "solutions"):
        shutil.copytree(REPO / part / "self_attention", root / part / "self_attention")
    grader = root / "autograder" / "self_attention" / "test_tq4.py"
    grader.write_text(grader.read_text() + '\n\ndef test_more(student):\n    """one more check"""\n'
                      '    assert False, _("a brand new message")\n')
    missing = translation.problems(root, "self_attention", "zh")
    assert sorted(p.split(": ")[1] for p in missing) == ["'a brand new message'", "'one more check'"]
    path, left = translation.update(root, "self_attention", "zh")
    assert len(left) == 2 and "a brand new message" in path.read_text(encoding="utf-8")


def test_compiled_catalogs_translate_in_order_assignment_then_gradekit():
    say = translator(REPO, "self_attention", "zh")
    assert say("the keys") == "键"                      # the assignment's
    assert say("Likely mistake: {name}.") == "可能的错误：{name}。"   # gradekit's
    assert say("not a message") == "not a message"
    assert translator(REPO, "self_attention", "en")("the keys") == "the keys"


# -- releases in two languages ------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
_CODE_SPAN = re.compile(r"`[^`]+`")
_FIELDS = re.compile(r"\{[^{}]*\}")


def _code_skeleton(source: str) -> tuple[list, list]:
    """The code without its prose: every token but comments and strings, and of each string the
    numbers and f-string fields it holds."""
    tokens, inside = [], []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            inside.append(sorted(_NUMBER.findall(tok.string)))
        elif tok.type == tokenize.STRING:
            tokens.append(("STRING", tok.string[:2] if tok.string[:2] in ('f"', "f'") else tok.string[:1]))
            inside.append((sorted(_NUMBER.findall(_FIELDS.sub("", tok.string))),
                           sorted(_FIELDS.findall(tok.string)) if tok.string.startswith("f") else []))
        elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            tokens.append((tok.type, tok.string))
    return tokens, inside


def _prose_facts(markdown: str) -> dict:
    """What a translation of a markdown cell must keep: numbers, formulas, code."""
    return {"numbers": set(_NUMBER.findall(_MATH.sub(" ", markdown))),
            "formulas": set(_MATH.findall(markdown)), "code": set(_CODE_SPAN.findall(markdown))}


def _variants(assignment: str, student: str):
    from gradekit.course import Course
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    course = Course.load(REPO)
    source = AssignmentSource.load(course, assignment)
    secret = b"gradekit-i18n-test"
    return (build_variant(course, source, student, secret, "en"),
            build_variant(course, source, student, secret, "zh"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.parametrize("student", ["alice", "bob"])
def test_zh_and_en_variants_differ_in_prose_only(assignment, student):
    en, zh = _variants(assignment, student)
    assert (en.seed, en.params) == (zh.seed, zh.params)
    assert en.notebooks.keys() == zh.notebooks.keys()
    for name in en.notebooks:
        a, b = en.notebooks[name], zh.notebooks[name]
        assert a.metadata == b.metadata and len(a.cells) == len(b.cells)
        translated = 0
        for index, (x, y) in enumerate(zip(a.cells, b.cells)):
            where = f"{assignment}/{name}.ipynb cell {index}"
            assert x.cell_type == y.cell_type and x.metadata == y.metadata, where   # ids, points, locks
            if x.source != y.source:
                translated += 1
                assert CJK.search(y.source), where
            if x.cell_type == "code":
                compile(y.source, where, "exec")
                assert _code_skeleton(x.source) == _code_skeleton(y.source), where
            elif x.cell_type == "markdown" and not x.metadata.get("nbgrader", {}).get("solution"):
                assert _prose_facts(x.source) == _prose_facts(y.source), where
                assert CJK.search(y.source) or not re.search(r"[A-Za-z]{4,}", x.source), where
        assert translated >= len(a.cells) // 2, f"{name}: only {translated} cells translated"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_zh_and_en_releases_differ_in_prose_only(assignment):
    from gradekit.release.stripper import Stripper

    en, zh = _variants(assignment, "carol")
    for name in en.notebooks:
        a, b = Stripper("en").student_version(en.notebooks[name]), Stripper("zh").student_version(zh.notebooks[name])
        for x, y in zip(a.cells, b.cells):
            meta = lambda c: {k: v for k, v in c.metadata.get("nbgrader", {}).items() if k != "checksum"}
            assert meta(x) == meta(y)
            if x.cell_type == "code":
                assert _code_skeleton(x.source) == _code_skeleton(y.source)
        stubs = [c.source for c in b.cells if c.metadata.get("nbgrader", {}).get("solution")]
        assert stubs and all("在这里写你的" in s for s in stubs), stubs[:2]


def test_a_broken_translation_names_the_cell_and_the_language(tmp_path):
    from babel.messages.pofile import read_po, write_po

    from gradekit.course import Course
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    root = tmp_path / "course"
    root.mkdir()
    shutil.copy2(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(REPO / "source" / "self_attention", root / "source" / "self_attention",
                    ignore=shutil.ignore_patterns("*.mo"))
    po = root / "source" / "self_attention" / "locale" / "zh.po"
    catalog = read_po(po.open("rb"), locale="zh")
    entry = next(m for m in catalog if m.id.startswith("## 1. Three projections"))
    entry.string = entry.string.replace("{{ n }}", "{{ n ")
    write_po(po.open("wb"), catalog)
    source = AssignmentSource.load(Course.load(root), "self_attention")
    build_variant(Course.load(root), source, "alice", b"s", "en")        # English is untouched
    with pytest.raises(TemplateError, match=r"self_attention.ipynb cell 2 \(zh translation\)"):
        build_variant(Course.load(root), source, "alice", b"s", "zh")


def test_translate_command_reports_and_checks(tmp_path, capsys):
    from gradekit.cli.main import main

    root = tmp_path / "course"
    root.mkdir()
    shutil.copy2(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    for part in ("source", "autograder", "solutions"):
        shutil.copytree(REPO / part / "self_attention", root / part / "self_attention")
    assert main(["--course", str(root), "translate", "self_attention", "--language", "zh", "--check"]) == 0
    assert main(["--course", str(root), "translate", "self_attention", "--language", "fr", "--check"]) == 1
    assert main(["--course", str(root), "translate", "self_attention", "--language", "fr"]) == 0
    out = capsys.readouterr().out
    assert (root / "source" / "self_attention" / "locale" / "fr.po").is_file()
    assert re.search(r"fr\.po: \d{3} to translate or check", out), out
    assert main(["--course", str(root), "translate", "nosuch", "--language", "fr"]) == 2
    assert main(["--course", str(root), "translate", "self_attention", "--language", "en"]) == 2
