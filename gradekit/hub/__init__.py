"""gradekit's web services behind a JupyterHub: the hub's login, and the instructor's pages in the hub.

auth.py       who is calling (the hub says, from their token or their OAuth cookie) and whether they
              teach the course (a scope the course's instructor role grants): the handlers every
              gradekit hub service builds on
"""
