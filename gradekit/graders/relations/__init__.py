"""How a wrong value relates to the right one: one module per relation family, its search, its
sentence in every language and its cost together (see family.py).

    engine.py       search(): the evidence of one failed check, every family in order, within their costs
    family.py       Family (a family's search, weighing, words and cost), Cost, Evidence, Part, Whole
    inputs.py       Inputs: the call's arrays, integers, axes and sizes
    numbers.py      simple numbers: 2, ½, ln 2, √d_k, 1/n ..., else two digits
    values.py       comparing within a check's tolerance; reading what a function returned
    words.py        words several families say (an axis, "what the right function gives for ...")

    the families, in the order they are tried and said:
    factor.py       S = c·R              shift.py       S = R + c          offset.py     S = R ± an input
    elementwise.py  S = t(R): abs, square, √, exp, log, ReLU, sigmoid, tanh, sign, 1/r, clipping, rounding
    order.py        R transposed, reversed, rolled, its slices reordered, reshaped, permuted
    normalised.py   R divided by its sum, put through a softmax, logs plus a constant, along an axis
    zeros.py        not 0 where R is 0   scaled.py      a factor (and a constant) per slice, per row and column
    precision.py    R to a few digits    of_input.py    S = t(an input)
    changed.py      ref(changed inputs)  composition.py ref(ref(x)), c·t(R), a·R + b
    transformed.py  ref(t(an input))     fitted.py      ref(c·x), ref(x + c), c fitted
    keyword.py      ref with an axis given as another, a number as 0 or 1
    where.py        R but on the diagonal, in the last row, where R < 0 ...
    independent.py  S does not change with an input
    probed.py       the student's function asked on inputs of the engine's (probing.py): right when ...,
                    changes where R does not           step.py   right for t steps, then wrong

The weighing of a cell's evidence and the sentences' frame are gradekit.grading.relate's; every
sentence is recomputed from the check's raw values by gradekit.grading.verify before it is said.
"""
