"""What a student hands in, read before anything trusts it (with :mod:`gradekit.untrusted`).

submission.py   a submitted notebook read defensively, then rebuilt on the student's own release
identity.py     who handed a submission in: the Unix account that owns it, never the name it carries
inbound.py      what arrives in the exchange's inbound folder, trusting only what a student cannot forge
ledger.py       the instructor's record of every hand-in: who, when, what, which attempt, its receipt
receipts.py     a signed receipt for every submission
"""
