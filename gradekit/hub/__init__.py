"""gradekit's instructor pages behind a JupyterHub, and the hub's config.

grading.py    the grading page as a service of the hub (``gradekit grade``)
report.py     the class report as a service of the hub (``gradekit report --serve``)
config/       ``gradekit hub-config``: the hub's config in the shape it takes (Unix accounts, one
              account in namespaces, Docker, Kubernetes): services, roles, the students' scopes
spawner.py    the one-account shape's spawner: every server one Unix account, in namespaces of its own
login.py      a password of each person's own, for a hub whose students have no Unix account

They stand on gradekit.web (the hub's login, a service's lifetime, where it listens); the hub
exchange is gradekit.exchange.hub.
"""
