"""The ``gradekit`` command: one module per verb, each with ``add_parser`` and ``run``.

main.py        the parser and the exit statuses; common.py what the verbs share
new.py  check.py  translate.py            writing an assignment
generate.py  answer_key.py  release.py    handing it out
collect.py  autograde.py                  taking it back and grading it
feedback.py  integrity.py  report.py      what people read
demo.py                                   the whole flow on a simulated class
"""
