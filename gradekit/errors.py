"""Named errors. Every mistake an instructor or student can make is one of these.

    GradekitError                 -- the CLI prints its message as one line, exits 2
    ├── CourseError               -- no nbgrader_config.py, bad config, unknown assignment
    ├── TemplateError             -- a source notebook or params.py that does not render
    ├── StudentError              -- a student id not in the gradebook
    ├── SubmissionError           -- a submission that cannot be graded (zero + reason)
    └── SandboxUnavailable        -- no bwrap and no --no-sandbox

Errors raised by student code inside the sandbox are not Python exceptions on
the trusted side; they come back as :class:`gradekit.sandbox.client.StudentCodeError`.
"""


class GradekitError(Exception):
    """Base class: a user-facing problem with a one-line message."""


class CourseError(GradekitError):
    """The course directory or its configuration is not usable."""


class TemplateError(GradekitError):
    """An assignment's source (notebook template or params generator) is broken."""


class StudentError(GradekitError):
    """A student id that the gradebook does not know."""


class SubmissionError(GradekitError):
    """A submitted notebook that cannot be graded; the message is the reason."""


class SandboxUnavailable(GradekitError):
    """bubblewrap is missing and the instructor did not accept running without it."""
