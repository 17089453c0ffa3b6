"""gradekit.graders.relations.engine and family: the families found, their words, their costs."""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path

import numpy as np

from gradekit.graders import relations
from gradekit.graders.relations.engine import families, family, search
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.inputs import Inputs
from gradekit.i18n.catalogs import languages
from gradekit.i18n.text import Phrase
from gradekit.results import Relation
from relation_cases import RNG, case, said, scores

PACKAGE = Path(relations.__file__).parent


def test_every_family_module_is_found_in_its_order():
    found = families()
    modules = [m.name for m in pkgutil.iter_modules([str(PACKAGE)])]
    with_family = [m for m in modules if "FAMILY =" in (PACKAGE / f"{m}.py").read_text()]
    assert len(found) == len(with_family) >= 17
    assert [f.rank for f in found] == sorted(f.rank for f in found)
    assert len({f.name for f in found}) == len(found)


def test_every_phrase_has_every_language_and_its_placeholders():
    """A family's sentences carry their translations: each language gradekit speaks, the same {placeholders}."""
    wanted = set(languages()) - {"en"}
    problems = []
    for path in sorted(PACKAGE.glob("*.py")):
        module = __import__(f"gradekit.graders.relations.{path.stem}", fromlist=["x"])
        for name, value in vars(module).items():
            items = value.items() if isinstance(value, dict) else [(name, value)]
            for key, text in items:
                if not isinstance(text, Phrase):
                    continue
                if set(text.translations) != wanted:
                    problems.append(f"{path.stem}.{key}: {sorted(text.translations)}")
                for language, translated in text.translations.items():
                    if set(re.findall(r"\{[^{}]*\}", translated)) != set(re.findall(r"\{[^{}]*\}", text.msgid)):
                        problems.append(f"{path.stem}.{key} ({language}): placeholders differ")
    assert not problems, problems


def test_a_family_module_says_only_phrases():
    """No _() in the families: their words are phrases, so a new family touches no catalog."""
    for path in PACKAGE.glob("*.py"):
        calls = [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Name) and n.func.id == "_"]
        assert not calls, path.name


def test_a_relation_stored_before_the_families_is_still_said():
    assert family("function", "log").name == "elementwise"
    assert family("function", "flip:0").name == "order"
    assert family("function", "normalised:last").name == "normalised"
    clause = family("function", "logsm:last").sentence("logsm:last", Relation("", "function", ["logsm:last"]))
    assert "plus a constant for each slice" in str(clause)


def test_a_cost_bounds_the_calls():
    calls = []

    def reference(x):
        calls.append(1)
        return x * 2

    class Greedy(Family):
        name, rank, cost = "greedy", 1, Cost(reference=3)

    call = __import__("gradekit.graders.check", fromlist=["Call"]).Call(None, reference, dict(x=np.ones(3)))
    whole = Whole("f#0", ["f#0"], [np.zeros(3)], [np.ones(3) * 2], call, Inputs(call), (1e-6, 1e-8), None)
    got = [whole.reference(Greedy(), [np.ones(3)]) for _ in range(5)]
    assert len(calls) == 3 and got[3] is None and whole.left(Greedy()) == 0


def test_the_searches_that_call_stop_once_one_explains():
    """The right function on -x explains the value: the families after it are not asked."""
    calls = []

    def reference(x, axis=-1):
        calls.append(1)
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    x = RNG.normal(size=(4, 5))
    evidence = search([reference(-x)], [reference(x)], what=["v"], rtol=1e-6, atol=1e-8,
                      call=__import__("gradekit.graders.check", fromlist=["Call"]).Call(None, reference, dict(x=x)))
    assert any("|changed|scale:x:-1" in k for k in evidence["holds"])
    assert not any("|fitted|" in k or "|transformed|" in k for k in evidence["tested"])


def test_nothing_is_said_of_one_check():
    one = [case(lambda Q, K: scores(Q, K) / 2, scores, dict(Q=RNG.normal(size=(3, 2)), K=RNG.normal(size=(4, 2))))]
    assert said(one) == ""


def test_a_later_check_does_not_call_again_for_what_an_earlier_one_ruled_out():
    """The first failed check of a cell tries every change and finds none; the second tries only what
    the first did not (a relation ruled out once can never be said), and nothing found holds there."""
    from gradekit.graders.check import Call
    from gradekit.graders.student import GiveUp

    calls = []

    def reference(x, axis=-1):
        calls.append(1)
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    class Students:  # what a grader holds of the student's function: it carries the cell's budget
        def __init__(self):
            self.give_up = GiveUp()
            self.give_up.cell = "test_softmax"

        def __call__(self, x, axis=-1):
            return np.sinh(reference(x, axis)) + 0.1  # nothing any family knows

    student = Students()
    counts = []
    for x in (RNG.normal(size=(4, 5)), RNG.normal(size=(3, 6)), RNG.normal(size=(5, 4))):
        calls.clear()
        search([student(x)], [reference(x)], what=["v"], rtol=1e-6, atol=1e-8, call=Call(student, reference, dict(x=x)))
        counts.append(len(calls))
    assert counts[0] > 30 and counts[1] <= counts[0] // 5 and counts[2] <= counts[0] // 5, counts


def test_no_full_collection_of_the_process_lands_inside_a_search():
    import gc

    from gradekit.graders.relations.engine import young_only

    collected = []

    def seen(phase, info):
        if phase == "start":
            collected.append(info["generation"])

    before = gc.get_threshold()
    gc.callbacks.append(seen)
    try:
        kept = []
        with young_only():
            for _ in range(300_000):  # enough containers that live on for many collections, a full one among them
                kept.append([])
        assert collected and 2 not in collected, sorted(set(collected))
        collected.clear()
        for _ in range(300_000):  # the same outside: the full collections come back
            kept.append([])
        assert 2 in collected
    finally:
        gc.callbacks.remove(seen)
    assert gc.get_threshold() == before
