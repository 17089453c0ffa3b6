"""nbgrader's gradebook: who is in the class, the assignment's structure, the grades.

connect.py       opening nbgrader's Gradebook (its API, imported only when needed)
roster.py        a roster CSV's students into the gradebook, as `nbgrader db student import` does
read.py          the class and what is registered (plain SQL first, nbgrader's API otherwise)
sql_read.py      the fast path: what an SQLite gradebook holds, with sqlite3
write.py         Recorder: each result's grades and late penalty, only what differs
sql_write.py     the fast path: one result into an SQLite gradebook, row for row nbgrader's
marks.py         the marks a student has now: manual grades and late penalties included
export.py        ``gradekit export --format canvas|moodle``: the totals as each LMS imports them
"""
