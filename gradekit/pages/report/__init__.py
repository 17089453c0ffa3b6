"""The class report: what a class got right and wrong, for the instructor.

``gradekit report ASSIGNMENT`` writes ``reports/<assignment>/``:

    index.html    one self-contained page: inline style, inline SVG plots, an optional
                  sorting script; opens from file:// with no network and reads the
                  same with JavaScript off
    report.json   every number the page shows
    report.csv    the student table

from the graded results (``autograded/<student>/<assignment>/results.json``)
and nbgrader's gradebook (manual grades, late penalties, lateness).

    data.py            read everything once          -> ClassData
    stats.py           the numbers                   -> the report dict (report.json)
    misconceptions.py  named mistakes and concept-check options
    plots.py           the plots as Vega-Lite specs, each with its title, text and data table
    svg.py             the specs drawn as inline SVG in Python (no JavaScript engine)
    export.py          report.json, report.csv
    build.py           write_report(): reads, computes, plots and writes the three files
    html.py            the page (gradekit/pages/templates/report.html, the look of gradekit/pages/look.py)
"""
