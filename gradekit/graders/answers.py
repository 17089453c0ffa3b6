"""Answers that are not numbers: True or False, a word, a multiple-choice option.

:func:`choice` and :func:`option` compare them as :mod:`gradekit.graders.check`'s comparisons
compare values (the public names are ``check.choice``, ``check.option``, ``check.truth``); the
message says what the student answered, never the right answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gradekit.errors import Mismatch
from gradekit.graders import observe
from gradekit.graders.catalogue import Mistakes, _audit, _known
from gradekit.i18n.text import Text, _


def choice(got: Any, expected: Any, *, what: str, mistakes: Mistakes = None, asked: str | None = None) -> None:
    """Check an answer that is not a number: True or False (a yes/no question), a word, an
    option's text. Strings compare without case and extra spaces::

        check.choice(student["tq1_changes"], False, what="tq1_changes",
                     asked=_("Does W_v change the attention weights?"),
                     mistakes={_("W_v only enters the output: the weights come from Q and K"): True})

    With a bool ``expected``, the student may answer True/False, yes/no (y/n, 是/否, 对/错 ...)
    or 1/0. A wrong answer's message says what the student answered, and to what (``asked``,
    the question in a few words), never the right answer; ``mistakes`` maps the name of a
    known wrong answer to that answer, as in :func:`array`.
    """
    if got is None:
        raise Mismatch(_none_message(what))
    said = _shown(got)  # the student's own answer, as they wrote it
    if isinstance(expected, (bool, np.bool_)):
        answer = truth(got)
        if answer is None:
            raise Mismatch(
                _("{what}: you answered {answer}, which is neither True nor False (yes or no)").format(
                    what=what, answer=said
                )
            )
        got, expected = answer, bool(expected)
        norm: Callable[[Any], Any] = truth
    else:
        norm = _norm
    if norm(got) == norm(expected):
        if mistakes and observe.auditing():
            _audit(mistakes, expected, what, lambda v, e: norm(v) == norm(e))
        return
    known = {name: value for name, value in _known(mistakes).items() if value is not None}
    candidates = [name for name, value in known.items() if norm(got) == norm(value)]
    message = (
        _("{what}: you answered {answer} to “{asked}”: that is not right").format(what=what, answer=said, asked=asked)
        if asked
        else _("{what}: you answered {answer}: that is not right").format(what=what, answer=said)
    )
    raise Mismatch(message, candidates=candidates, ruled_out=[name for name in known if name not in candidates])


LETTERS = "ABCDEFGHIJ"


def option(got: Any, item: Mapping[str, Any], *, what: str) -> None:
    """Check a multiple-choice answer against one item of the params::

        # params.py: {"id": "mc_scaling", "question": ..., "options": [...], "answer": "C",
        #             "why": {wrong option's text: the misconception it stands for, ...}}
        check.option(student["mc_scaling"], item, what="mc_scaling")

    ``item["answer"]`` is the right option's letter (or its index); the student answers with a
    letter (any case) or the option's text typed out. A wrong option is the mistake its ``why``
    names (the message says the letter chosen and that misconception, never the right option);
    ``gradekit check`` finds items of this shape in the params to judge guessing and how often
    classmates' answers agree. List the item's cell in ``choice_cells`` (the assignment's
    settings) for the class report to count the options chosen.
    """
    options = [str(o) for o in item["options"]]
    answer = item["answer"]
    right = answer if isinstance(answer, int) and not isinstance(answer, bool) else LETTERS.index(str(answer).upper())
    if got is None:
        raise Mismatch(_none_message(what))
    text = str(got).strip()
    letters = LETTERS[: len(options)]
    if len(text) == 1 and text.upper() in letters:
        chosen = letters.index(text.upper())
    else:
        typed = [k for k, o in enumerate(options) if _norm(o) == _norm(text)]
        if not typed:
            raise Mismatch(
                _("{what}: you answered {answer}, which is none of the options {letters}").format(
                    what=what, answer=_shown(got), letters=", ".join(letters)
                )
            )
        chosen = typed[0]
    if chosen == right:
        return
    why = (item.get("why") or {}).get(options[chosen])
    wrong = [(item.get("why") or {}).get(o) for k, o in enumerate(options) if k != right]
    if why is None:
        raise Mismatch(_("{what}: you chose {letter}, which is not right").format(what=what, letter=letters[chosen]))
    raise Mismatch(
        _("{what}: you chose {letter} -- {reason}").format(what=what, letter=letters[chosen], reason=_(why)),
        mistake=why,
        ruled_out=[w for w in wrong if w and w != why],
    )


def truth(value: Any) -> bool | None:
    """``value`` read as a yes/no answer -- True/False, 1/0, or a word such as yes/no, y/n,
    true/false, 是/否, 对/错, 会/不会 -- or None when it is none of them::

        check.truth("Yes.")   # True
        check.truth("perhaps")   # None
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower().rstrip(".!。！")
        if word in _YES:
            return True
        if word in _NO:
            return False
    return None


_YES = frozenset({"true", "yes", "y", "t", "1", "是", "对", "会", "正确", "是的", "对的"})


_NO = frozenset({"false", "no", "n", "f", "0", "否", "不", "错", "不会", "不是", "不对", "错误"})


def _shown(value: Any) -> str:
    """A student's own answer as their feedback quotes it (short, on one line)."""
    from gradekit.untrusted import shown

    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, str):
        return "“" + shown(" ".join(value.split()), 60) + "”"
    return shown(repr(value), 60)


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.strip().lower().split())
    return value


def _none_message(what) -> Text:
    """The message for a missing value: a variable left unset reads as no answer; a function's
    None may be a missing ``return``."""
    if str(what).isidentifier():
        return _("{what}: no answer given").format(what=what)
    return _("{what}: got None -- no answer given, or a function without a `return`").format(what=what)
