"""``gradekit integrity``: who copied from whom, from the per-student variants and the code.

It compares every submission of an assignment (``submitted/<student>/<a>/``)
with every other one, reads nothing but files, runs no student code and
never changes a grade.

    detect.py        detect(): every pair's evidence, weighed and flagged
    material.py      each student's own variant, and what each handed in
    variants.py      evidence from the variants: another student's cells, answers, numbers
    fingerprints.py  winnowing over normalised Python tokens
    code.py          evidence from the code: an index of fingerprints, rarity weights
    report.py        the terminal table, integrity.json and integrity.html

Why not copydetect (evaluated first, version 0.5.0): it compares every pair
of files (``CopyDetector._comparison_loop``; 300 files took 4.8 s here and
the time grows with the square: a class of 1,000 with six answer cells each
would take hours), it removes boilerplate but has no weighting by how many
submissions share a passage, it keeps numbers verbatim instead of bucketing
them, tokenizes with Pygments rather than Python's own tokenizer, and pulls
in matplotlib for its report. The winnowing itself is forty lines of numpy
(:mod:`.fingerprints`); the rest (the index, the rarity, the variants) is what
this problem needs and copydetect does not have.
"""
