"""The hub exchange: a JupyterHub service that knows students by their hub login.

wire.py       its HTTP contract, server and client side by side: the service's name, the headers,
              the routes, the statuses; the client every caller uses (the standard library only)
server.py     the service (``gradekit hub-exchange``): releases, feedback, listings, the app;
              api.py its handlers' common ground and limits, handins.py hand-ins in, gate.py the
              door they pass (rate, uploads at once), store.py its records and files
course.py     the course's side: the exchange interface over the wire
student.py    nbgrader's student commands on the hub exchange (what a student's server runs)
"""
