"""The verifier: every sentence the engine would say about a wrong answer, recomputed on the raw values
of every failed check it cites, by code that shares nothing with the search that found it.

The relation search (:mod:`gradekit.graders.relations`) and the catalogue's evidence
(:func:`gradekit.graders.check.evidence`) propose; the weighing (:mod:`gradekit.grading.relate`,
:mod:`gradekit.grading.diagnosis`) asks here, for each failed check of the subject, whether the
claim is true there, false there, or cannot be told there, and says a claim only when it is false
on none and true on enough of them -- with the counts this module gave. Each family's words are
read again here (a factor named as sqrt(d_k) is sqrt of this check's d_k; "only in the last row,
and 0 there" is built as a mask of this check's shape), from the check's witness
(:mod:`gradekit.graders.witness`): the student's values, the right ones, the call, and what the
student's function gave when the search called it again.

    claims.py    the entry: claim(), mistake(), contradicts(): a sentence's truth on one check
    basics.py    one check as a claim reads it; sizes, axes, expressions, two digits
    values.py    what the values are: a factor, a function of R, a precision ...
    order.py     the right values in another order: transposed, reversed, moved, reshaped
    places.py    where the values differ, and what they are there
    calls.py     what the right function gives on changed inputs; what the student's gave
    probes.py    the engine's own questions: a setting changed; the student's answer on a probe

A claim true on a check only because nothing could refute it there is no evidence: each claim is
also tried with the student's values replaced by noise, and one that holds of noise too is "cannot
be told" there (one number per check, a place that names every entry).
"""
