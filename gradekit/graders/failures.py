"""What a student reads when their code failed in a call: the function not defined, not implemented,
stopped at a limit, or what it raised and where."""

from __future__ import annotations

from gradekit.errors import (
    CallbackFailed,
    CallbackFailure,
    CodeFailure,
    SandboxTimeout,
    StudentCodeError,
    StudentFailure,
)
from gradekit.i18n.text import Text, _


def _student_failure(name: str, exc: StudentCodeError) -> StudentFailure:
    """The grader's exception for the student's code failing in a call of ``name``."""
    if isinstance(exc, CallbackFailed):
        return CallbackFailure(describe(name, exc))
    return StudentFailure(describe(name, exc))


def _timed_out(name: str, exc: SandboxTimeout) -> Text:
    return _("`{name}` timed out on an earlier check ({reason})").format(name=name, reason=exc.message)


def describe(name: str, exc: StudentCodeError) -> Text:
    """What a student reads when their code failed in a call of ``name``: the function that is
    not defined or not implemented is named, be it ``name`` or a function of theirs it called (or
    was given: ``student.check(student.attention, ...)``)."""
    if exc.failure is CodeFailure.RAISED and exc.exc_type == "NameError":
        missing = _undefined(exc.message)
        if missing == name or (missing is not None and not exc.where):  # not exc.where: a function passed
            return _("`{name}` is not defined in your notebook").format(name=missing)
    if exc.failure is CodeFailure.RAISED and exc.exc_type == "NotImplementedError":
        return _("`{name}` is not implemented yet (NotImplementedError)").format(name=exc.function or name)
    if exc.failure is CodeFailure.LIMIT:  # it went past a limit on the grader's functions (CallbackOverrun)
        return _("`{name}` was stopped: {reason}").format(name=name, reason=exc.message)
    where = f" ({exc.where[-1]})" if exc.where else ""
    return _("calling `{name}` raised {kind}: {message}{where}").format(
        name=name, kind=exc.kind, message=exc.message, where=where
    )


def _undefined(message: str) -> str | None:
    """The name of ``NameError: name 'x' is not defined``, if that is the message."""
    prefix, suffix = "name '", "' is not defined"
    if message.startswith(prefix) and suffix in message:
        found = message[len(prefix) : message.index(suffix)]
        return found if found.isidentifier() else None
    return None
