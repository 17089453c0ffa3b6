# names: forgot the output projection W_o
# %% tq1
tq1_params = 3 * tq1_d_model ** 2
tq1_head_params = 3 * tq1_d_model * (tq1_d_model // tq1_heads)
