"""``gradekit serve``: feedback seconds after Submit -- a live grading service on the course's exchange;
and the one way feedback goes back.

serve.py      Service: take each hand-in the exchange takes in, record it, queue it, grade it in the
              session, record the attempt that counts, give its feedback back; one line per event;
              kill -9 safe
policies.py   each served assignment's policy and due date, read again while the service runs
regrades.py   `gradekit autograde` through a running service: the control socket's service side
session.py    GradingSession: the warm runners and recorders autograde and serve both grade on;
              autograde's library side (a running service's session, or one of its own)
queues.py     one queue per student, served in turn, throttled by the assignment's policy
policy.py     an assignment's rules: attempts, the time between them, which counts, what shows
              before the due date
delivery.py   feedback back, one way for every way back: serve, release-feedback, regrades
attempts.py   each graded hand-in kept as an attempt; the one that counts installed as the submission
control.py    the service's socket: its protocol, and `gradekit autograde`'s side of it
"""
