"""What people read: feedback pages for students, the class report and the terminal for instructors.

look.py        the one look of the HTML pages: style, fonts, how points and shares are written
feedback.py    one HTML page per student and notebook
report/        the class report (HTML with inline SVG plots, JSON, CSV)
terminal.py    the progress bar and the summary table while grading
templates/     the pages' jinja2 templates
"""
