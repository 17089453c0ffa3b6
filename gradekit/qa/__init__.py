"""``gradekit check``: an assignment's QA, run before any student sees it.

run.py        the simulated class, the gradings and one Row per check
rows.py       Row, CheckReport and the table
simulate.py   the temporary course, the simulated students, the QA set's submissions
qaset.py      the QA set's files: known mistakes and right answers written differently
leaks.py      the LeakScan stage: hidden values in the feedback
blind.py      the BlindSpots stage: known mistakes that give the right answer on some input
items.py      multiple-choice items against test-wise guessing
warned.py     what the course's code warned as it graded: a row each
demo.py       ``gradekit demo``'s simulated class: right answers, mistakes, copiers, broken and hostile files
"""
