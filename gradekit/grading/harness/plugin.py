"""The pytest plugin that hands a submission to the hidden graders.

Fixtures: ``student`` (the sandboxed namespace), ``reference`` (the module in
``solutions/<assignment>/reference.py``), ``params`` (the student's variant
params) and ``rng`` (a Generator seeded from the student's seed and the test's
node id). The plugin also records every test's outcome as a
:class:`gradekit.results.Check`, keeping only the assertion's message: pytest's
rewritten ``assert`` text could show expected values, so it never reaches a
student.
"""

from __future__ import annotations

import zlib
from typing import Any, Literal, cast

import numpy as np
import pytest

from gradekit.errors import CodeFailure, Mismatch, StudentCodeError, StudentFailure
from gradekit.graders import observe, recent
from gradekit.graders.student import GiveUp, Student
from gradekit.i18n import Text, _
from gradekit.i18n.text import Say
from gradekit.results import Check
from gradekit.untrusted import clip

FIXTURES = ("student", "reference", "params", "rng")


class GraderFixtures:
    """The fixtures a grader asks for, pointed at one submission at a time (:meth:`bind`).

    Registered as a plugin object by gradekit's own grading session
    (:class:`GraderPlugin`) and by the ``pytest`` entry point
    (:mod:`gradekit.grading.harness.entry`), so a grader sees the same values
    either way -- ``rng`` included: it is seeded from the student's seed and the
    test's name, not from where the grader file lies.
    """

    def __init__(self, reference: Any):
        self._reference = reference
        self.bind(None, {}, 0)

    def bind(self, sandbox, params: dict, seed: int, budget: float | None = None, say=None) -> None:
        """Point the fixtures at the next submission; forget the last one's checks. ``say``
        stores each check's texts (English) and notes their translation (gradekit.i18n.text.Say)."""
        self._sandbox, self._params, self._seed = sandbox, params, seed
        self.say = say or Say()
        self.checks: dict[str, list[Check]] = {}
        self._calls_at_start = 0
        self._again = 0  # a test run again on new numbers: its rng seeded anew (gradekit.grading.harness.cases)
        self.grader_errors: list[tuple[str, str]] = []  # (test's node id, "Kind: message"): see is_grader_error
        self.give_up = GiveUp(budget)

    # -- fixtures ---------------------------------------------------------------
    @pytest.fixture
    def student(self, request) -> Student:
        return self._fixture("student", request.node)

    @pytest.fixture
    def reference(self, request) -> Any:
        return self._fixture("reference", request.node)

    @pytest.fixture
    def params(self, request) -> dict:
        return self._fixture("params", request.node)

    @pytest.fixture
    def rng(self, request) -> np.random.Generator:
        return self._fixture("rng", request.node)

    def _fixture(self, name: str, item) -> Any:
        """The value of fixture ``name`` for test ``item`` and the bound submission (one of FIXTURES)."""
        if name == "student":
            self.give_up.cell = module_of(item.nodeid)  # the cell its checks are weighed in
            return Student(self._sandbox, self._reference, give_up=self.give_up)
        if name == "reference":
            return RecordingReference(self._reference) if observe.recording_references() else self._reference
        if name == "params":
            return self._params
        return self._rng_for(item.nodeid)

    def _rng_for(self, nodeid: str) -> np.random.Generator:
        name = nodeid.split("::", 1)[-1] + (f"#again{self._again}" if self._again else "")
        salt = zlib.crc32(name.encode())
        return np.random.default_rng([self._seed & (2**64 - 1), self._seed >> 64, salt])


class RecordingReference:
    """The reference module, telling the observers every value its functions return (``gradekit
    check`` looks for them in the feedback: a hidden value that reaches a student is a leak)."""

    def __init__(self, module: Any):
        self._module = module

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if not callable(value) or isinstance(value, type):
            return value

        def recorded(*args, **kwargs):
            out = value(*args, **kwargs)
            observe.reference_returned(out)
            return out

        recorded.__name__ = name
        return recorded


class GraderPlugin(GraderFixtures):
    """gradekit's own grading session: the fixtures, a direct path for plain graders, and a
    lean report that records each test as a :class:`~gradekit.results.Check`."""

    def __init__(self, reference: Any):
        self.collect_errors: list[tuple[str, str, str]] = []
        self._plans: dict = {}  # item -> (argument names, parametrize values), or () when pytest must run it
        self._labels: dict = {}  # item -> (cell, name, weight)
        super().__init__(reference)

    # -- the direct path ---------------------------------------------------------
    def is_direct(self, item) -> bool:
        """Whether ``item`` can be called directly (see :meth:`run_direct`) rather than through pytest."""
        return bool(self._plan(item))

    def _plan(self, item) -> tuple:
        plan = self._plans.get(item)
        if plan is None:
            plan = self._plans[item] = _direct_plan(item)
        return plan

    def run_direct(self, item) -> None:
        """Call a plain grader test with this submission's fixture values and record its check.

        Most graders are plain functions of this plugin's fixtures and their
        own parametrize values. Calling those directly skips pytest's per-test
        setup/report/teardown machinery (about 1 ms a test, 45 tests a
        notebook) with the same fixture values and the same recorded check.
        Anything else -- other fixtures, skip/xfail marks, classes with
        set-up -- goes through pytest's full protocol.
        """
        names, given = self._plan(item)
        arguments = {name: given[name] if name in given else self._fixture(name, item) for name in names}
        self._calls_at_start = self.give_up.calls
        recent.begin()
        try:
            item.obj(**arguments)
        except pytest.skip.Exception:
            return
        except (Exception, pytest.fail.Exception) as exc:  # noqa: BLE001 - whatever a grader raises is a failed
            # check; pytest.fail and pytest.raises' "DID NOT RAISE" are BaseExceptions, and checks too
            self._record(item, "failed", feedback_message(exc), exc)
        else:
            self._record(item, "passed", "")

    def run_again(self, item, seen: set[str], passes: bool = False, again: int = 0) -> tuple[list[Check], list]:
        """Run a plain grader test again, its failed comparisons kept instead of raised
        (:func:`gradekit.graders.keeping.keeping`), and give them as checks -- recorded nowhere: the
        cases its loop never reached after its first failure (see gradekit.grading.harness.cases);
        ``seen``, the inputs compared already (their fingerprints): not kept again. With ``passes``,
        also the raw values of its passing comparisons that had known mistakes (witnesses). ``again``
        (1, 2, ...) seeds its ``rng`` anew: the same test on other numbers."""
        from gradekit.graders.keeping import keeping

        names, given = self._plan(item)
        self._again = again
        try:
            arguments = {name: given[name] if name in given else self._fixture(name, item) for name in names}
        finally:
            self._again = 0
        self._calls_at_start = self.give_up.calls
        recent.begin()
        with keeping(seen, passes) as kept:
            try:
                item.obj(**arguments)
            except (Exception, pytest.fail.Exception, pytest.skip.Exception):  # noqa: BLE001 - the run ends there
                pass
        return [self._check(item, "failed", feedback_message(m), m) for m in kept.failed], kept.passed

    def _record(self, item, outcome: str, message: str, exc: BaseException | None = None) -> None:
        if outcome == "skipped":
            return
        check = self._check(item, outcome, message, exc)
        cell = self._labels[item][0]
        if exc is not None and is_grader_error(exc):
            what = f"{type(exc).__name__}: {exc}"
            if type(exc).__name__ == "FixtureLookupError" and getattr(exc, "argname", None):
                what = f"no fixture {cast(Any, exc).argname!r} (the graders' fixtures: {', '.join(FIXTURES)})"
            self.grader_errors.append((item.nodeid, clip(what, 300)))
        self.checks.setdefault(cell, []).append(check)

    def _check(self, item, outcome: str, message: str, exc: BaseException | None = None) -> Check:
        label = self._labels.get(item)
        if label is None:
            label = self._labels[item] = _label(item)
        _cell, name, weight = label
        say = self.say
        mistake = getattr(exc, "mistake", None)
        evidence = _stored_evidence(getattr(exc, "relations", None), getattr(exc, "witness", None), say)
        if evidence is not None and self.give_up.calls == self._calls_at_start:
            evidence["answer"] = True  # no call of the student's code: the value checked is an answer they wrote
        return Check(
            name=say(name),
            passed=outcome == "passed",
            message=say(message),
            weight=weight,
            mistake=None if mistake is None else say(mistake),
            candidates=[say(c) for c in getattr(exc, "candidates", ())],
            ruled_out=[str(r) for r in getattr(exc, "ruled_out", ())],
            observations=[say(o) for o in getattr(exc, "observations", ())],
            differs=[[say(w), wrong, size] for w, wrong, size in getattr(exc, "differs", ())],
            tolerance=list(getattr(exc, "tolerance", ())),
            evidence=evidence,
        )

    # -- hooks ------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item) -> None:
        self._calls_at_start = self.give_up.calls
        recent.begin()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call) -> pytest.TestReport:
        """Record the check and make a lean report.

        pytest's own report renders the failure's traceback with source
        excerpts -- about 20 ms a failure, most of a failing submission's
        grading time -- and nobody reads it here: the student sees only the
        assertion's message.
        """
        excinfo = call.excinfo
        exc = None
        outcome: Literal["passed", "failed", "skipped"]
        if excinfo is None:
            outcome, message = "passed", ""
        elif excinfo.errisinstance(pytest.skip.Exception):
            outcome, message = "skipped", ""
        else:
            outcome, message, exc = "failed", feedback_message(excinfo.value), excinfo.value
        if call.when == "call" or (call.when == "setup" and outcome == "failed"):
            self._record(item, outcome, message, exc)
        return pytest.TestReport(
            item.nodeid,
            item.location,
            {},
            outcome,
            str(message) or None,
            call.when,
            duration=call.duration,
            start=call.start,
            stop=call.stop,
        )

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collect_errors.append(collect_error(report))

    def pytest_configure(self, config) -> None:
        config.addinivalue_line("markers", "weight(w): the share of the cell's points this test carries")


def _stored_evidence(evidence: dict | None, witness, say) -> dict | None:
    """A check's relation evidence with the names of what it compared stored as the student reads them,
    and its raw values (the verifier's: kept until the cell is weighed)."""
    if not evidence:
        return {"raw": witness} if witness is not None else None
    out = {**evidence, "labels": {k: say(v) if v else "" for k, v in evidence.get("labels", {}).items()}}
    if witness is not None:
        out["raw"] = witness
    return out


def _label(item) -> tuple[str, str, float]:
    """A test's cell (its module), its name for the feedback (the docstring's first line) and its weight."""
    marker = item.get_closest_marker("weight")
    weight = float(marker.args[0]) if marker and marker.args else 1.0
    name = _(item.name.removeprefix("test_").replace("_", " "))
    doc = getattr(getattr(item, "function", None), "__doc__", None)
    if doc:
        first = doc.strip().splitlines()[0]
        given = dict(item.callspec.params) if hasattr(item, "callspec") else {}
        fields = _fields(first)
        if given and fields and fields <= set(given):  # "concept check: {topic}": each case names itself
            name = _(first).format(**{f: _(given[f]) if isinstance(given[f], str) else given[f] for f in fields})
        else:
            name = _(first)
            if given:
                name = _("{name} ({id})").format(name=name, id=item.callspec.id)
    return module_of(item.nodeid), name, weight


def _fields(template: str) -> set[str]:
    """The named placeholders of a docstring's first line ({topic}); none for one that is no format string."""
    import string

    try:
        return {field for _text, field, _spec, _conv in string.Formatter().parse(template) if field}
    except ValueError:  # a lone brace: plain text
        return set()


def _direct_plan(item) -> tuple:
    """What calling ``item`` directly takes: its argument names and parametrize values; () if it can't be."""
    if not isinstance(item, pytest.Function) or type(item.obj).__name__ == "method":
        return ()
    if any(mark.name not in ("weight", "parametrize") for mark in item.iter_markers()):
        return ()
    given = dict(item.callspec.params) if hasattr(item, "callspec") else {}
    # "request" enters the closure through the rng fixture; a test asking for it goes to pytest
    if not set(item.fixturenames) <= {*FIXTURES, "request", *given} or "request" in item._fixtureinfo.argnames:
        return ()
    return (tuple(item._fixtureinfo.argnames), given)


def module_of(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return path.rsplit("/", 1)[-1].removesuffix(".py")


def feedback_message(exc: BaseException):
    """What a student may see of a failure: the assertion's own message, never its operands
    (a :class:`gradekit.i18n.Text` when the grader wrote one)."""
    if isinstance(exc, (StudentFailure, Mismatch)) and exc.args and isinstance(exc.args[0], Text):
        return exc.args[0]
    if isinstance(exc, StudentFailure):
        return str(exc)
    if isinstance(exc, StudentCodeError):  # raised through an object of the student's (a method, a property)
        where = f" ({exc.where[-1]})" if exc.where else ""
        if exc.failure is CodeFailure.LOST:
            return _("your object was lost when your code had to be restarted after an earlier failure")
        if exc.failure is CodeFailure.LIMIT:
            return _("your code was stopped: {reason}").format(reason=exc.message)
        return _("your code raised {kind}: {message}{where}").format(kind=exc.kind, message=exc.message, where=where)
    if isinstance(exc, pytest.fail.Exception):  # pytest.fail(msg), pytest.raises' "DID NOT RAISE ..."
        return clip(str(exc.msg or "").strip(), 1000) or _("a hidden check failed")
    if isinstance(exc, AssertionError):
        if exc.args and isinstance(exc.args[0], Text):
            return exc.args[0]
        text = str(exc)
        # pytest's assertion rewriting appends "assert <expr>" with values: drop it
        head = text.split("\nassert ", 1)[0]
        if head.startswith("assert "):
            return _("a hidden check failed")
        return clip(head.strip(), 1000) or _("a hidden check failed")
    if "hypothesis" in type(exc).__module__:
        return _("a hidden property check failed")
    return _("the grader could not check this: {kind}").format(kind=type(exc).__name__)


def is_grader_error(exc: BaseException) -> bool:
    """Whether a grader's exception is its own -- not a failed check, nor the student's code
    failing: a NameError, a missing fixture, an IndexError on a value of an unexpected shape.
    The student's answer may provoke one; one the answer key provokes too is a bug in the grader
    (see :meth:`gradekit.grading.pipeline.Pipeline.grade`)."""
    if isinstance(exc, BaseExceptionGroup):  # several failures at once (hypothesis): a grader's own if any is
        return any(is_grader_error(inner) for inner in exc.exceptions)
    if getattr(exc, "grader_suspected", False) is True:  # a CallbackFailure: the grader's function raised
        return True
    return (
        not isinstance(exc, (StudentFailure, Mismatch, StudentCodeError, AssertionError, pytest.fail.Exception))
        and "hypothesis" not in type(exc).__module__
    )


def collect_error(report) -> tuple[str, str, str]:
    """Where and why a grader module does not load: (its node id, the line or '', the message).

    pytest's collection report holds the traceback as text; the line is the
    last ``path:N:`` location in it, the message its last ``E   `` line.
    """
    import re

    text = report.longreprtext or ""
    path = report.nodeid or "the graders"
    message = next((line[1:].strip() for line in reversed(text.splitlines()) if line.startswith("E ")), "")
    locations = re.findall(r"^(\S+\.py):(\d+)", text, re.M)
    line = ""
    for where, number in locations:
        if where.endswith(path.rsplit("/", 1)[-1]):
            line = number
    if not line:
        found = re.search(r"line (\d+)", text)
        line = found.group(1) if found else ""
    return path, line, message or (text.strip().splitlines() or ["does not load"])[-1]
