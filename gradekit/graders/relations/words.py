"""Words several families say: an axis, a list of names, "what the right function gives for ...".

Each is a :func:`gradekit.i18n.text.phrase`, its translations beside it.
"""

from __future__ import annotations

from typing import Any

from gradekit.i18n.text import Text, phrase

AXIS_NAMED = phrase("the axis given by `{name}`", zh="`{name}` 指定的轴")
AXIS_LAST = phrase("the last axis", zh="最后一个轴")
AXIS_NUMBER = phrase("axis {k}", zh="第 {k} 个轴")
AND = phrase("{0} and {1}", zh="{0} 和 {1}")

GIVES = phrase(
    "your values are what the right function gives for {change}", zh="你的结果是正确的函数在 {change} 时算出的结果"
)
GIVES_BROADCAST = phrase(
    "your values are what the right function gives for {change}, repeated to the shape of yours",
    zh="你的结果是正确的函数在 {change} 时算出的结果，再重复成你的形状",
)


def called(name: str) -> str:
    """A function among the inputs as a formula shows what it returns: ``score(…)``."""
    return f"{name}(…)"


def axis(name: str) -> Text:
    """An axis as a key names it: ``=axis`` (the argument), ``last``, a number."""
    if name.startswith("="):
        return AXIS_NAMED.format(name=name[1:])
    if name == "last":
        return AXIS_LAST
    return AXIS_NUMBER.format(k=name)


def names(items: list[str]) -> Any:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) == 1:
        return items[0]
    return AND.format(", ".join(items[:-1]), items[-1])


def gives(change: Any, broadcast: bool = False) -> Text:
    """What the right function gives for ``change`` (a formula or a phrase)."""
    return (GIVES_BROADCAST if broadcast else GIVES).format(change=change)
