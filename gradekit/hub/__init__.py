"""gradekit's instructor pages behind a JupyterHub, and the hub's config.

grading.py    the grading page as a service of the hub (``gradekit grade``)
report.py     the class report as a service of the hub (``gradekit report --serve``)
config.py     ``gradekit hub-config``: the hub's services, roles and the students' scopes

They stand on gradekit.web (the hub's login, a service's lifetime, where it listens); the hub
exchange is gradekit.exchange.hub.
"""
