# names: counted 4 bytes a number (FP32)
# %% tq2
tq2_bytes = 2 * tq2_heads * tq2_d_head * 4
tq2_mib = tq2_context * tq2_layers * tq2_bytes / 2 ** 20
