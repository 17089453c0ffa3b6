"""The filesystem exchange: nbgrader's exchange folders, with gradekit's modes and its judge of hand-ins.

course.py     FilesystemExchange: the exchange interface on nbgrader's folders
inbound.py    what arrives in inbound/, read trusting only what a student cannot forge
layout.py     who may read what in the exchange's folders; feedback's names and release
watch.py      inbound/'s events: inotify, or polling (NFS)
nbgrader.py   nbgrader's exchange classes that know whose variant is whose
collect.py    nbgrader collect, judging each hand-in by who handed it in and when
steps.py      running nbgrader's exchange steps from gradekit (publishing, the demo's round trip)
"""
