"""Texts a student reads, translated when they are shown: ``_("...")`` and what it returns.

``_("divided by the variance")`` makes a :class:`Text`: a message id (the English
text) and, after ``.format(...)``, its arguments. Nothing is looked up when
it is made, so ``_()`` works at a grader module's top level: the text is
rendered per student, in their language, when grading stores it (see
:class:`Say`) or a page shows it (see :class:`View`).

A Text *is* its English rendering (a ``str`` subclass): ``==``, ``hash``,
``in``, ``join``, JSON and f-strings see the English text, so a mistake's
catalogue name is the same for every student (``Check.mistake``,
``CellResult.diagnosis``) and code that handles messages as strings keeps
working. A translation that does not format (a placeholder the translator
mistyped) falls back to the English text, never to an error.

``N_("...")`` only marks a string for extraction (a quiz option in the
params, a misconception kept in a table) and returns it unchanged; it is
translated where it is shown, by looking the English text up.

``phrase("...", zh="...")`` is a Text that carries its own translations, for
code that keeps its sentences beside it (a relation family, one module with its
search and its sentence in every language): rendered through a translate
function that knows its language (:func:`gradekit.i18n.catalogs.translator`'s
do), it uses its own translation, and else the catalogs', as a Text does.
``gradekit translate`` does not extract it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, cast

Translate = Callable[[str], str]

__all__ = ["Text", "Phrase", "_", "N_", "phrase", "join", "render", "Say", "View"]


class Text(str):
    """A message for a student: a string -- its English rendering -- that remembers its message id
    and arguments, so it can be rendered again in another language (:meth:`render`)."""

    __slots__ = ("msgid", "args", "kwargs")
    msgid: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def __new__(cls, msgid: str, args: tuple = (), kwargs: dict | None = None) -> Text:
        msgid, args, kwargs = str(msgid), tuple(args), dict(kwargs or {})
        english = msgid.format(*args, **kwargs) if args or kwargs else msgid
        text = super().__new__(cls, english)
        text.msgid, text.args, text.kwargs = msgid, args, kwargs
        return text

    def format(self, *args: Any, **kwargs: Any) -> Text:
        """The same message with these arguments (``str.format`` placeholders), still translatable."""
        return Text(self.msgid, args, kwargs)

    def render(self, translate: Translate) -> str:
        """The text in the language of ``translate`` (a gettext function); arguments that are
        Texts are rendered in the same language."""
        template = self._template(translate)
        if not self.args and not self.kwargs:
            return template
        args = [render(a, translate) for a in self.args]
        kwargs = {k: render(v, translate) for k, v in self.kwargs.items()}
        try:
            return template.format(*args, **kwargs)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError):
            return self.msgid.format(*args, **kwargs)  # a broken translation: say it in English

    def _template(self, translate: Translate) -> str:
        return translate(self.msgid)


class Phrase(Text):
    """A Text with its translations beside it (see :func:`phrase`): ``{language: template}``."""

    __slots__ = ("translations",)
    translations: dict[str, str]

    def __new__(
        cls, msgid: str, args: tuple = (), kwargs: dict | None = None, translations: dict | None = None
    ) -> Phrase:
        text = cast(Phrase, super().__new__(cls, msgid, args, kwargs))
        text.translations = dict(translations or {})
        return text

    def format(self, *args: Any, **kwargs: Any) -> Phrase:
        return Phrase(self.msgid, args, kwargs, self.translations)

    def _template(self, translate: Translate) -> str:
        own = self.translations.get(getattr(translate, "language", ""))
        return own if own is not None else translate(self.msgid)


class Joined(Text):
    """Several texts shown one after another (each a whole sentence or clause of its own)."""

    __slots__ = ("separator", "parts")
    separator: str
    parts: list[Any]

    def __new__(cls, separator: str, parts: Iterable[Any]) -> Joined:
        parts = list(parts)
        text = str.__new__(cls, separator.join(str(p) for p in parts))
        text.msgid, text.args, text.kwargs = str(text), (), {}
        text.separator, text.parts = separator, parts
        return text

    def format(self, *args: Any, **kwargs: Any) -> Text:  # pragma: no cover - nothing to format
        raise TypeError("a joined text has no placeholders")

    def render(self, translate: Translate) -> str:
        parts = [render(p, translate) for p in self.parts]
        separator = self.separator
        if any(_CJK.search(str(p)) for p in parts):  # Chinese is set with full-width marks and no spaces
            separator = _CJK_SEPARATORS.get(separator, separator)
        return separator.join(parts)


_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_CJK_SEPARATORS = {"; ": "；", ", ": "，", " ": ""}


def _(msgid: str) -> Text:
    """Mark ``msgid`` for translation; the result is translated when it is shown."""
    return Text(msgid)


def phrase(msgid: str, **translations: str) -> Phrase:
    """A text with its translations, by language: ``phrase("your values are 0", zh="你的结果是 0")``."""
    return Phrase(msgid, translations=translations)


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction only; it stays a plain string (translated where it is shown)."""
    return msgid


def join(separator: str, parts: Iterable[Any]) -> Text:
    return Joined(separator, parts)


def render(value: Any, translate: Translate) -> Any:
    """A Text rendered with ``translate``; anything else unchanged (numbers keep their format specs)."""
    return value.render(translate) if isinstance(value, Text) else value


class Say:
    """Where grading stores a text a student will read: keep the English, note the translation.

    ``say(text)`` returns the English text to store in the results and puts
    its rendering in the student's language into :attr:`table` (English ->
    translation) when the two differ. A plain string is looked up as a
    message id, so a constant message or a catalogue name marked with
    ``N_`` is translated too.
    """

    def __init__(self, language: str = "en", translate: Translate | None = None):
        self.language = language
        self._translate = translate if language != "en" else None
        self.table: dict[str, str] = {}

    def __call__(self, value: Any) -> Any:
        if value is None:
            return None
        english = str(value)
        if self._translate is not None and english:
            local = value.render(self._translate) if isinstance(value, Text) else self._translate(english)
            if local != english:
                self.table[english] = local
        return english

    def view(self) -> View:
        """How the student sees what was stored so far (for a stage that writes feedback)."""
        return View(self.language, self.table, self._translate)


class View:
    """What a student sees of a result: stored English texts through the result's translations,
    and the page's own texts (Texts) rendered in the student's language."""

    def __init__(
        self, language: str = "en", translations: dict[str, str] | None = None, translate: Translate | None = None
    ):
        self.language = language
        self.translations = translations or {}
        self._translate = translate or (lambda msgid: msgid)

    def __call__(self, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, Text) and value not in self.translations:
            return value.render(self._translate)
        return self.translations.get(value, str(value)) if isinstance(value, str) else str(value)
