"""Grading what a person grades: answer groups, rubrics, the grading page.

groups.py     the class's answers to one cell, grouped: free text by meaning (char n-gram TF-IDF and the
              course's glossary), code by normalised tokens, numbers by the mistake they match
glossary.py   the course's key terms, read from autograder/<assignment>/glossary.txt
answers.py    what each student handed in for a cell, and their context (numbers, named mistakes)
store.py      the rubrics, the items each answer got, the groups as a person left them, the undo log
marks.py      an answer's score from its items, written into nbgrader's gradebook as manual grades
server.py     ``gradekit grade``: the grading page on 127.0.0.1 (or as a JupyterHub service)
"""
