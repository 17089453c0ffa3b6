"""``gradekit serve``: feedback seconds after Submit -- a live grading service on nbgrader's exchange.

serve.py      Service: watch inbound/, receive each hand-in, grade it on a warm runner, record it,
              release its feedback; one line per event; kill -9 safe
watch.py      inbound/'s events: inotify through watchfiles, or polling (NFS)
queues.py     one queue per student, served in turn, throttled by the policy
policy.py     the course's rules: attempts, the time between them, which counts, what shows before
              the due date
attempts.py   each graded hand-in kept as an attempt; the one that counts installed as the submission
control.py    the service's socket: `gradekit autograde` hands its work to a running service
"""
