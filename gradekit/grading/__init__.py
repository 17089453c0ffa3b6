"""Grading one submission: a :class:`~gradekit.grading.pipeline.Pipeline` of stages.

options.py     Options: how to grade (light: no pytest, nbgrader or numpy)
pipeline.py    Pipeline (one per grading process): the variant, then each notebook through the stages
stages.py      NotebookJob, Stage, StageContext and the default stages, in order
preflight.py   the course checked before the first submission: templates render, graders compile
incremental.py what changed since the last grading: a digest of submission, assignment, gradekit
diagnosis.py   one diagnosis per graded cell, weighed over the evidence of all its checks
relate.py      what a cell's wrong values show about the right ones, when no mistake is named
lines.py       a cell's checks as the feedback lists them ("values differ" checks as one line)
harness/       the pytest machinery that runs the hidden graders (what a grader *imports* is
               gradekit.graders)
"""
