"""Handing out beside the exchange: an LMS's zips, and the students' Lab.

lms.py         zips to upload to Canvas or Moodle; their bulk downloads into submitted/
lab.py         the student's JupyterLab: Validate in one line a cell
students.py    the Jupyter settings a students' server reads: the course, its exchange, the classes
"""
