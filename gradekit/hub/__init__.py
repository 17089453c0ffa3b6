"""gradekit's web services behind a JupyterHub: the hub's login, and the instructor's pages in the hub.

auth.py       who is calling (the hub says, from their token or their OAuth cookie) and whether they
              teach the course (a scope the course's instructor role grants): the handlers every
              gradekit hub service builds on
exchange.py   the hub exchange, a service of the hub (``gradekit hub-exchange``): releases, feedback,
              listings; api.py its handlers' common ground and limits, handins.py hand-ins in,
              gate.py the door they pass (rate, uploads at once), store.py its records and files
grading.py, report.py, web.py, config.py   the instructor's pages in the hub, and hub-config
"""
