"""What a student hands in, read before anything trusts it (with :mod:`gradekit.untrusted`).

submission.py   a submitted notebook read defensively, then rebuilt on the student's own release
"""
