"""Handing notebooks out and taking them back: nbgrader's exchange, or an LMS.

exchange.py    nbgrader exchange classes that know whose variant is whose
steps.py       running exchange steps from gradekit (publishing the variants)
lms.py         zips to upload to Canvas or Moodle; their bulk downloads into submitted/
"""
