"""Handing notebooks out and taking them back: an exchange (nbgrader's folders, or a hub service), or an LMS.

base.py        the exchange interface: releases out, hand-ins in (who and when), feedback back,
               what a student may list
exchanges.py   the course's exchange, by its setting
filesystem.py  the filesystem exchange: nbgrader's folders, judged by who owns a hand-in
exchange.py    nbgrader exchange classes that know whose variant is whose (the filesystem exchange's)
collect.py     nbgrader collect, judging each hand-in by who handed it in and when
take_in.py     gradekit collect: the exchange's hand-ins into submitted/, whichever the exchange
policy.py      an assignment's rules: attempts, the time between them, which counts, what shows
               before the due date
feedback.py    feedback back, one way for every exchange: gradekit release-feedback, regrades
layout.py      who may read what in the exchange's folders; feedback's names and release
watch.py       inbound/'s events: inotify, or polling (NFS)
steps.py       running exchange steps from gradekit (publishing the variants, the demo's round trip)
lms.py         zips to upload to Canvas or Moodle; their bulk downloads into submitted/
doctor.py      is the deployment private and sound?
lab.py         the student's JupyterLab: Validate in one line a cell
"""
