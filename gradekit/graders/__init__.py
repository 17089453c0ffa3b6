"""What a hidden grader imports: the comparisons, the ``student`` fixture, and what a failed check keeps.

check.py       the comparisons a grader makes (array, arrays, scalar, choice, ...; Call); a failed
               one raises a Mismatch that never shows the expected values
answers.py     answers that are not numbers: True or False, a word, a multiple-choice option
catalogue.py   the evidence a wrong value gives about the known mistakes (a check's ``mistakes=``)
keeping.py     a test that goes on past a failed comparison: its failures kept, not raised (the
               harness's further cases)
probes.py      sentences about a wrong value no mistake explains
relations/     how a wrong value relates to the right one (imported only when a check fails)
witness.py     a failed check's raw values, kept for the verifier
recent.py      the calls a test made of the student's functions, for a check given no ``call=``
student.py     the ``student`` fixture: the student's namespace, seen through the sandbox
budget.py      a notebook's grading budget, as the fixture keeps it
failures.py    what a student reads when their code failed in a call
observe.py     the seam ``gradekit check`` watches a grading through
"""
