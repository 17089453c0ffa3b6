"""From a variant to what a student receives: nbgrader's release steps, in nbgrader's order.

preprocessors.py  nbgrader's release preprocessors in plain Python (held to nbgrader's by test)
stripper.py       Stripper: those steps per notebook, nbgrader's own as the fallback
cache.py          ReleaseCache: each student's stripped release, kept for grading
registration.py   the assignment's notebooks and cells into nbgrader's gradebook, as SaveCells records them
generate.py       ``gradekit generate``: every student's release, the assignment registered;
                  the answer key written out
"""
