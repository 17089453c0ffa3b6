"""Every error gradekit raises to its callers, in one place. Two kinds of failure are kept apart:

* a **course failure** -- the course or the machine is broken (a grader that does
  not import, a template that does not render, a sandbox that cannot start, a
  gradebook that cannot be written): the run stops as soon as it is seen, exits
  non-zero and writes nothing to the gradebook;
* a **student failure** -- one student's input cannot be graded: that student
  gets a zero with the reason, and the rest of the class goes on.

::

    GradekitError                  the CLI prints the message as one line
    ├── UsageError                 exit 2: a mistake on the command line or in the course's
    │   │                          data (unknown assignment, student not in the gradebook)
    │   ├── StudentError           a student id the gradebook does not know
    │   ├── LMSError               an LMS bulk download or roster that cannot be read
    │   └── ExchangeFailure        an nbgrader exchange step failed (nbgrader logged why)
    ├── CourseFailure              exit 3: the course or the machine is broken; nothing written
    │   ├── CourseError            no nbgrader_config.py, a config that does not load
    │   ├── TemplateError          a source notebook or params generator that does not render
    │   ├── GraderError            a hidden grader or the reference that does not load
    │   ├── SandboxUnavailable     no bubblewrap (and no --no-sandbox)
    │   ├── SandboxBroken          a sandbox that cannot start
    │   ├── GradebookError         a gradebook that cannot be written
    │   ├── MissingExtra           an optional part not installed: names the extra to install
    │   ├── HubUnreachable         the JupyterHub a service asks who is calling does not answer
    │   └── LMSUnavailable         an LMS's service (LTI: a token, line items, scores, the roster)
    │       │                      did not answer, or answered 408, 429 or 5xx: worth trying again
    │       └── LMSRefused         ... refused what was asked (any other 4xx): exit 2, not again
    └── SubmissionError            a submission that cannot be graded: zero + the reason
        └── HandinTooLarge         a hand-in over a limit of its files' number or size

    StudentCodeError               the student's code raised, hung, crashed or broke the
    ├── SandboxTimeout             protocol (raised on the trusted side by the sandbox client;
    ├── SandboxCrashed             ``failure`` says which, as a CodeFailure)
    ├── CallbackOverrun            ... called the grader's functions too often, with too much, or
    │                              for too long (the callback_* limits): stopped, the student's
    └── CallbackFailed             ... raised after a function of the grader's it was given
                                   raised (the grader may be at fault: see below)

    Mismatch (AssertionError)      a grader's comparison failed: the message is feedback
    StudentFailure (AssertionError) the student's code failed during a grader's call
    └── CallbackFailure            ... after a function of the grader's it was given raised
    BoundaryError                  the grader's own mistake with the sandbox: an argument that
                                   cannot cross, a function of its own that calls the student's
                                   code, a result of its own that cannot go back

A grader's exception that is none of the failures above is its own (a NameError, a
BoundaryError): the pipeline grades the answer key, and one the key provokes too is a
GraderError, which stops the run; a CallbackFailure is treated so too (the grader's function
may be what is broken), and stays the student's failure when the key passes.

``CodeFailure`` is an enum, so that a student's own exception named ``Timeout``
or ``Lost`` cannot pass for one of gradekit's.

An error a service answers over HTTP carries its status (``status``), as the CLI's carry
their exit code: no status is picked from a message.

Three exceptions stay private to the module that raises and catches them, and never
reach a caller: ``sandbox.protocol.ProtocolError`` (a frame outside the protocol, turned
into a StudentCodeError), ``release.preprocessors.Unsupported`` (a notebook for nbgrader's
own preprocessors) and ``gradebook.sql_write.Decline`` (a result for nbgrader's API).
"""

from __future__ import annotations

import enum


class GradekitError(Exception):
    """Base class: a user-facing problem with a one-line message."""

    exit_code = 2


# -- mistakes of the person running the command ------------------------------------------


class UsageError(GradekitError):
    """A mistake in what was asked: an unknown assignment or student, a bad option."""


class StudentError(UsageError):
    """A student id that the gradebook does not know."""


class LMSError(UsageError):
    """A bulk download or roster that cannot be read."""


class ExchangeFailure(UsageError):
    """An exchange step (release, fetch, submit, ...) failed; nbgrader logged why."""


# -- the course or the machine is broken ---------------------------------------------------


class CourseFailure(GradekitError):
    """The course or the infrastructure is broken: stop the run, write nothing.

    The message names the file (and line, where there is one) to fix.
    """

    exit_code = 3


class CourseError(CourseFailure):
    """The course directory or its configuration is not usable."""


class TemplateError(CourseFailure):
    """An assignment's source (notebook template or params generator) is broken."""


class GraderError(CourseFailure):
    """A hidden grader (or the reference solution) does not load."""


class SandboxUnavailable(CourseFailure):
    """bubblewrap is missing and the instructor did not accept running without it."""


class SandboxBroken(CourseFailure):
    """A sandbox that does not start: bubblewrap refused, or the worker died on start-up."""


class GradebookError(CourseFailure):
    """The gradebook cannot be read or written."""


class MissingExtra(CourseFailure):
    """An optional part of gradekit whose extra is not installed (see :mod:`gradekit.extras`)."""


class HubUnreachable(CourseFailure):
    """The JupyterHub whose API a gradekit service asks who is calling does not answer."""


class LMSUnavailable(CourseFailure):
    """An LMS's LTI service did not answer, or answered that it could not now; ``retry``: trying
    again later may help (the LTI sender's backoff); ``status``: the HTTP status, if one came."""

    retry = True

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class LMSRefused(LMSUnavailable):
    """An LMS's LTI service refused what was asked (a 4xx other than 408 and 429): not tried again."""

    exit_code = 2
    retry = False


# -- one student's submission ----------------------------------------------------------------


class SubmissionError(GradekitError):
    """A submitted notebook that cannot be graded; the message is the reason (a zero). A service
    refuses one with ``status``, its HTTP status (gradekit.exchange.hub.wire)."""

    status = 400


class HandinTooLarge(SubmissionError):
    """A hand-in over a limit: too many files, or too many bytes once unpacked."""

    status = 413


# -- student code, seen from the trusted side ---------------------------------------------


class CodeFailure(enum.Enum):
    """How a call into the student's code failed."""

    RAISED = "raised"  # the code raised an exception of its own (its type name in exc_type)
    TIMEOUT = "timeout"  # no answer within the deadline
    CRASHED = "crashed"  # the process died
    PROTOCOL = "protocol"  # an answer outside the protocol
    LOST = "lost"  # an object from before the code had to be restarted
    SANDBOX = "sandbox"  # the sandbox stopped answering
    LIMIT = "limit"  # it went past a limit on calling the grader's functions (see CallbackOverrun)


class StudentCodeError(Exception):
    """The student's code raised, hung, crashed or answered outside the protocol."""

    def __init__(
        self,
        failure: CodeFailure,
        message: str,
        where: list[str] | None = None,
        exc_type: str | None = None,
        function: str | None = None,
    ):
        self.failure, self.message, self.where = failure, message, where or []
        self.exc_type = exc_type if failure is CodeFailure.RAISED else None
        self.function = function  # the function of the student's code it was raised in, where known
        super().__init__(f"{self.kind}: {message}" if message else self.kind)

    @property
    def kind(self) -> str:
        """What to call it in feedback: the exception's type name, or the kind of failure."""
        if self.failure is CodeFailure.RAISED:
            return self.exc_type or "Error"
        return _KIND_NAMES[self.failure]


_KIND_NAMES = {
    CodeFailure.TIMEOUT: "Timeout",
    CodeFailure.CRASHED: "Crashed",
    CodeFailure.PROTOCOL: "ProtocolError",
    CodeFailure.LOST: "Lost",
    CodeFailure.SANDBOX: "SandboxError",
    CodeFailure.LIMIT: "LimitExceeded",
}


class SandboxTimeout(StudentCodeError):
    def __init__(self, message: str):
        super().__init__(CodeFailure.TIMEOUT, message)


class SandboxCrashed(StudentCodeError):
    def __init__(self, failure: CodeFailure, message: str):
        super().__init__(failure, message)


class CallbackOverrun(StudentCodeError):
    """The student's code went past a limit on the grader's functions it was given or that stand in
    for its own (``callback_calls``, ``callback_size``, ``callback_seconds``): its call was stopped.
    Those functions run in the grader's process, so the limits keep the student's code from
    spending the grader's time and memory; an overrun is the student's failure, never the grader's."""

    def __init__(self, message: str):
        super().__init__(CodeFailure.LIMIT, message)


# -- graders ------------------------------------------------------------------------------


class CallbackFailed(StudentCodeError):
    """The student's code raised after a function of the grader's it was given (a reference
    function passed as an argument, or a ``with_reference`` helper) raised: ``callback`` names
    that function, ``inner`` is what it raised (``"Kind: message"``)."""

    def __init__(self, raised: StudentCodeError, callback: str, inner: str):
        super().__init__(CodeFailure.RAISED, raised.message, raised.where, exc_type=raised.exc_type)
        self.function = raised.function
        self.callback, self.inner = callback, inner


class BoundaryError(Exception):
    """A grader asked the sandbox for what it cannot do: an argument that cannot cross into the
    student's code (a set, a file, a generator ...), a function of the grader's that calls the
    student's code itself, or that returns what cannot go back. A bug in the grader, never the
    student's: graded on the answer key too, it stops the run as a GraderError."""


class Mismatch(AssertionError):
    """A student's value differs from the reference; the message is the feedback.

    ``candidates`` are the catalogue names of the known wrong mistakes the value
    matched on this input (several when those mistakes coincide here);
    ``ruled_out`` the mistakes it was compared with and did not match.
    ``mistake`` is the one candidate when there is exactly one (what this
    check alone points to; the cell's diagnosis weighs all its checks, see
    gradekit.grading.diagnosis). ``observations`` are what the probes saw.
    ``relations`` is the evidence of how the value relates to the right one
    (gradekit.graders.relations), ``differs`` the ``(what, wrong, size)`` of each
    part when the message says only that values differ (within ``tolerance``,
    ``(rtol, atol)``): a page may then show such checks as one line. ``witness`` keeps the raw
    values for the verifier (:mod:`gradekit.graders.witness`).

    A grader raises one itself for a check of its own (``check.Mismatch``)::

        if got is None:
            raise check.Mismatch(_("{qid}: no answer given").format(qid=qid))
        raise check.Mismatch(_("the cache kept the first token only"), mistake=_("append overwrites the cache"))
    """

    def __init__(
        self,
        message: str,
        mistake: str | None = None,
        *,
        candidates=None,
        ruled_out=(),
        observations=(),
        relations: dict | None = None,
        differs=(),
        tolerance=(),
        witness=None,
    ):
        super().__init__(message)
        self.candidates = list(candidates) if candidates is not None else ([mistake] if mistake else [])
        self.ruled_out = list(ruled_out)
        self.mistake = mistake if mistake is not None else (self.candidates[0] if len(self.candidates) == 1 else None)
        self.observations = list(observations)
        self.relations = relations
        self.differs = list(differs)
        self.tolerance = list(tolerance)
        self.witness = witness  # the raw values, for the verifier (gradekit.graders.witness); never stored


class StudentFailure(AssertionError):
    """The student's code raised, hung or crashed during a grader's call."""


class CallbackFailure(StudentFailure):
    """The student's code failed after a function of the grader's it was given raised. The
    student's failure (its message is their feedback), but suspect: the pipeline grades the answer
    key, and one that fails the same way is a bug in the grader (``grader_suspected``)."""

    grader_suspected = True
