# names: there are n_heads of them
# %% tq3
tq3_compute_ratio = 1 / tq3_heads
tq3_tables = tq3_heads
tq3_choice = ("n_heads times cheaper: each head is only d_model / n_heads wide, so the score tables of all the "
              "heads cost that much less.")
