"""Notebooks as gradekit reads them: cell roles, nodes without nbformat's validator, exercises.

cells.py       the roles of a cell, from nbgrader's metadata (solution, test, graded, editable)
nodes.py       NotebookNode in memory without importing the rest of nbformat
exercises.py   which heading of a notebook each graded cell sits under (its exercise's title)
"""
