"""What every gradekit web service stands on, in a JupyterHub or alone.

auth.py       the hub's login: who is calling, and whether they teach the course
lifetime.py   a service the hub started lives no longer than its hub
serving.py    where a service listens (in a hub, or alone on 127.0.0.1 with a token), and its run
"""
