"""Writing an assignment, and each student's variant of it.

template.py    an assignment's source: jinja2 notebook templates and a params generator
variant.py     seed from (secret, course, assignment, student) -> params -> rendered notebooks
languages.py   languages.csv: which student reads which language (language_of)
scaffold.py    ``gradekit new``: an assignment that grades at once, from skeleton/ or a copy
translation.py the texts an author translates: message ids of gradekit and an assignment (Babel),
               and keeping a catalog in step with them (``gradekit translate``)
quickstart.py  ``gradekit quickstart DIR``: a new course directory anywhere, that passes ``gradekit check``
skeleton/      the files ``gradekit new`` starts from; course_skeleton/ those of ``gradekit quickstart``
"""
