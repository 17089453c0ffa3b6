"""gradekit: per-student variants, sandboxed pytest graders, nbgrader's gradebook.

The folders are the data flow of one assignment (each folder's ``__init__`` maps its modules)::

    template ─► variant ─► release ─► submission ─► sandbox ─► graders ─► results ─► gradebook / feedback / report
    authoring/             release/   exchange/     sandbox/   graders/   results.py  gradebook/  pages/
                                      intake/                  grading/                           (qa/, integrity/)
                                                               runners/
    around them: errors.py, course.py, settings.py, untrusted.py (everything a student controls), i18n/,
    service/ (gradekit serve, and the one way feedback goes back), web/ (what gradekit's web services
    stand on), hub/ (the instructor's pages in a hub), handout/ (an LMS's zips, the students' Lab),
    doctor/, cli/ (one module a verb); atomic.py, timeline.py, imports.py, pool.py; manual/ for what a
    person grades (answer groups, the grading page); lti/ for the course inside an LMS (after the
    gradebook: what the LMS should hold, sent back), woken by changes.py

Glossary -- one word for one thing, and one thing for each word:

    course          a course directory: nbgrader_config.py, source/, autograder/, solutions/ (course.Course)
    assignment      one folder of source/: jinja2 notebook templates and their params generators
    secret          the course secret; with it, anyone can compute every student's numbers
    params          one student's numbers: generate(rng) -> plain JSON, seeded from the secret and the student id
    variant         one student's own notebooks, rendered from their params (authoring.variant)
    release         what a student receives: a variant through nbgrader's release steps (release/)
    answer key      a variant with its solutions kept; write_answer_key writes one student's
    submission      what a student hands in, as it is graded: submitted/<student>/<assignment>/
    exchange        how releases go out and hand-ins come in, with who and when, and feedback goes back
                    (exchange.base.CourseExchange): nbgrader's folders (exchange.filesystem) or the hub
                    exchange service (exchange.hub: its wire, its server, the course's client)
    hand-in         one arrival in the exchange, read and judged (exchange.handin.Handin, one type for
                    both exchanges); the ledger records it, and the one that counts becomes the submission
    reference       where an exchange holds a hand-in (exchange.handin.HandinRef): the ledger keys hand-ins
                    by it, receipt.json carries it, feedback goes back for it; only its exchange reads its key
    hand-in number  the student's n-th hand-in of an assignment, graded or not (the ledger's ``number``,
                    a receipt's, a page's "hand-in 3", serve's "received ... (hand-in 3, ...)"); never
                    called an attempt. The hub exchange numbers its records of the course's hand-ins in
                    turn: that number is its reference, always said "record 7 of the hub exchange"
    attempt         a graded hand-in: the k-th of the student's hand-ins gradekit serve graded ("attempt 2
                    of 3"; serve's "graded ... attempt 2: ..., hand-in 3"); the policy says which one
                    counts. A retry of a request is a try, never an attempt
    ledger          the instructor's record of every hand-in, at its first sight (exchange.ledger)
    receipt         a signed line that names a hand-in: student, assignment, number, time, files
                    (exchange.receipts)
    policy          an assignment's rules for a student's attempts and what shows before the due date
                    (service.policy): attempts, the time between them, which counts, what is hidden
    disclosure      what a page shows now, as the policy says (pages.feedback.Disclosure)
    delivery        the one way a graded submission's pages go back to its student: the policy applied,
                    then the exchange (service.delivery.deliver); every way back calls it
    counting score  what the gradebook holds of the submission that counts; every write that can change
                    it calls gradebook.scores.changed, which tells its listeners (changes.py)
    grader          a hidden pytest module, autograder/<a>/test_<cell>.py, that grades one test cell
    check           one test of a grader and its outcome (results.Check). gradekit.graders.check holds the
                    comparisons a check makes; ``gradekit check`` is the command that runs an assignment's QA.
                    A function that verifies and raises is a require_* (require_id, require_students, ...)
    mistake         a known wrong answer: its catalogue name and the value it gives (a check's mistakes=)
    finding         what the evidence of a cell's checks says, the mistake(s) it points to (results.Finding)
    diagnosis       a cell's best-supported finding: the mistake named to the student (grading.diagnosis)
    probe           a sentence about a wrong value that no mistake explains (graders.probes)
    relation        how a wrong value relates to the right one (a factor, a function of it, the right
                    function on changed inputs, ...), weighed over a cell's failed checks and said when
                    no mistake is named (graders.relations, grading.relate; results.Relation)
    misconception   what the class report calls the mistakes a class made, and what a concept check's
                    wrong option stands for: a mistake seen from the class, not another kind of thing
    QA set          an assignment's mistakes/ and correct/ files, graded by ``gradekit check`` (qa/)
    question        what a person grades across the class: a manually graded cell, or an autograded
                    answer and its test cell (manual.answers)
    answer group    a question's answers that say the same thing, graded together (manual.groups)
    rubric, item    a question's items, each points and one sentence, taken off full marks, added up
                    from zero or adjusting the autograder's score (gradebook.rubrics)
    glossary        the course's key terms that answer groups read, autograder/<a>/glossary.toml
    stage           one step of grading a notebook (grading.stages), built with a StageContext
    pipeline        what one grading process holds for one assignment (grading.pipeline.Pipeline)
    observer        what a watching stage installs to see inside a grading (graders.observe)
    runner          where submissions are graded: in-process, a local pool, Dask (runners/)
    grading session the runners and recorders autograde and serve both grade on (service.session)
    job, outcome    one submission handed to a runner; its result and what was observed, handed back
    result          one graded submission, as plain typed data (results.SubmissionResult)
    digest          the hash of what a grading depends on; an equal one means nothing changed (grading.incremental)
    fingerprint     a hashed k-gram of normalised code tokens, for copy detection only (integrity/)
    limits          the sandbox's limits, named as the c.Gradekit settings they come from (sandbox.limits)
    LMS course      a course of an LMS (Canvas, Moodle, ...) the course is linked to: an LTI context, whose
                    launches log people into the hub (gradekit.lti)
    launch          one LTI 1.3 message from an LMS course: who, their roles, the LMS's service URLs
    line item       an LMS gradebook column: one per assignment and LMS course (AGS)
    outbox          the scores the LMS should hold and has not acknowledged yet, each kept with the
                    timestamp it was first sent with (gradekit.lti.store)
    course failure  the course or the machine is broken: the run stops, nothing more is written
    student failure one submission cannot be graded: its zero and the reason; the rest goes on
"""

__version__ = "0.1.0"


def _skip_slow_optional_imports() -> None:
    """Import jsonschema without the optional packages its format checkers use.

    nbformat imports jsonschema, and jsonschema's ``_format`` module imports,
    when they are installed (they arrive with Jupyter), a package per string
    format: rfc3987_syntax (which builds a lark grammar on import: 1.4 s),
    rfc3986_validator, isoduration with arrow and dateutil, webcolors... --
    a fifth of a second of every process that reads a notebook. Neither
    nbformat's schemas nor gradekit check string formats. While (and only
    while) ``jsonschema._format`` executes, those imports fail fast, so
    jsonschema simply leaves those formats out; afterwards they import as usual.
    """
    import importlib.machinery
    import sys

    class _PlainFormats:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != "jsonschema._format":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or not hasattr(spec.loader, "exec_module"):
                return spec
            assert spec.loader is not None  # it has exec_module
            execute = spec.loader.exec_module

            def exec_module(module):
                blocked = [n for n in _FORMAT_PACKAGES if n not in sys.modules]
                for n in blocked:
                    sys.modules[n] = None  # type: ignore[assignment]  # None: an import of it fails at once
                try:
                    execute(module)
                finally:
                    for n in blocked:
                        if n in sys.modules and sys.modules[n] is None:
                            del sys.modules[n]

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    if not any(type(f).__name__ == "_PlainFormats" for f in sys.meta_path):
        sys.meta_path.insert(0, _PlainFormats())


_FORMAT_PACKAGES = (
    "fqdn",
    "idna",
    "rfc3987",
    "rfc3986_validator",
    "rfc3987_syntax",
    "rfc3339_validator",
    "webcolors",
    "jsonpointer",
    "uri_template",
    "isoduration",
)

_skip_slow_optional_imports()
