# names: gave bits, not bytes
# 16 per number everywhere: FP16's 16 bits counted as if they were bytes.
# %% tq1
tq1_mb = 16 * tq1_n ** 2 / 2 ** 20
tq1_max_n = (tq1_gb * 2 ** 30 / 16) ** 0.5
tq1_block_mb = 16 * tq1_n * tq1_block / 2 ** 20
