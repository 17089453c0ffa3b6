"""Writing an assignment, and each student's variant of it.

template.py    an assignment's source: jinja2 notebook templates and a params generator
variant.py     seed from (secret, course, assignment, student) -> params -> rendered notebooks
scaffold.py    ``gradekit new``: an assignment that grades at once, from skeleton/ or a copy
skeleton/      the files ``gradekit new`` starts from
"""
