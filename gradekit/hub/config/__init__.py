"""``gradekit hub-config``: a course's hub, written for the shape it takes, not copied by hand.

Every shape writes, with every path in full (a hub's services do not search its PATH):

    listening       the hub on an address of the course's choosing (loopback behind a reverse proxy
                    with TLS by default, or TLS of its own), its proxy and API on loopback
    who logs in     the roster's accounts and the instructors (logins.py: PAM, a password each, the chart's)
    instructors     a hub group and role holding the course's instructor scope and access to its
                    services (gradekit.web.auth)
    each server     the course's settings for its kind (students/ or instructors/); JupyterLab, or
                    Notebook 7 for the accounts interfaces.csv names
    the services    gradekit serve, the grading page and the class report; on the hub exchange the
                    exchange itself (hidden from the Services menu), the students' scope to use it,
                    the scopes of each server's token, and the course's token

The shapes (SHAPES), one module each:

    accounts        one machine, a Unix account a student, nbgrader's exchange folders (accounts.py)
    one-account     one machine, one Unix account for every server, each in bubblewrap namespaces of
                    its own; the hub exchange (one_account.py)
    docker          DockerSpawner: a container a server; the hub exchange (docker.py)
    kubernetes      Zero to JupyterHub: a fragment of the chart's values and the exchange's manifest
                    (kubernetes.py)

shapes.py names them (SHAPES, shape_of, text); plan.py holds the options (Plan) and their checks,
pieces.py the lines the Python configs share, shape.py what every shape does (the hub's folder it
writes), external.py the course's services beside a hub on another machine.
"""
