"""The filesystem exchange: nbgrader's exchange folders, with gradekit's modes and its judge of hand-ins.

course.py     FilesystemExchange: the exchange interface on nbgrader's folders
inbound.py    what arrives in inbound/, read trusting only what a student cannot forge
layout.py     who may read what in the exchange's folders; feedback's names and release
watch.py      inbound/'s events: inotify, or polling (NFS)
release.py    nbgrader's release (the instructor's): each student's own variant out, theirs alone
student.py    nbgrader's fetch, submit, list, fetch_feedback (the students'), each on their own variant
collect.py    nbgrader collect, judging each hand-in by who handed it in and when
steps.py      running nbgrader's exchange steps from gradekit (publishing, the demo's round trip)
"""
