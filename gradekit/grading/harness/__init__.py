"""Running the hidden graders with pytest, once configured and collected per grading process.

suite.py    GraderSuite: collects an assignment's graders once, runs a notebook's against the sandbox
plugin.py   the fixtures the graders get (student, reference, params, rng) and the checks' outcome
cases.py    a failed test that stopped at its first failure, run again past it: its further cases
entry.py    the pytest11 entry point: the same fixtures under plain ``pytest autograder/<a>``
helpers.py  the course's modules beside the graders (``_common.py``), importable by their bare names
warned.py   what the course's code warns as it grades, noted once at the course's own line
"""
