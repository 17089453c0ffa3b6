"""``gradekit check``: an assignment's QA, run before any student sees it.

run.py        the check, in order: the simulated class, its gradings, one Row per check
static.py     the rows that grade nothing: templates render, variants differ, graders and points
tasks.py      the simulated class's submissions (Task), graded by a runner as autograde grades
grades.py     the rows on the grades: answer keys, releases, the QA set's files, determinism, leaks
feedback.py   the rows on the feedback: the QA set's mistakes named / related / bare, translations
diversity.py  the rows on variant diversity: a classmate's right answer, handed in as one's own
disclosure.py the rows on what a student sees of the assignment before and after its due date
stats.py      how likely chance alone gives what the rows see: the tails they are judged by
keep.py       ``--keep DIR``: the simulated class kept for the author to read
rows.py       Row, CheckReport and the table
simulate.py   the temporary course, the simulated students, the QA set's submissions
qaset.py      the QA set's files: known mistakes and right answers written differently
leaks.py      the LeakScan stage: hidden values in the feedback
blind.py      the BlindSpots stage: known mistakes that give the right answer on some input
items.py      multiple-choice items against test-wise guessing
loops.py      a test that compares several cases in one loop: the parametrized form to write instead
warned.py     what the course's code warned as it graded: a row each
demo.py       ``gradekit demo``'s simulated class: right answers, mistakes, copiers, broken and hostile files
"""
