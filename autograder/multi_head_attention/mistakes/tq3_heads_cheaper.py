# names: there are n_heads of them
# %% tq3
tq3_compute_ratio = 1 / tq3_heads
tq3_tables = tq3_heads
tq3_choice = "The heads are n_heads times cheaper, because each head works on only d_model / n_heads columns."
