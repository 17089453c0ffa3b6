# names: counted 1 MB as 10⁶ bytes
# %% tq1
tq1_mb = 2 * tq1_n ** 2 / 1e6
tq1_max_n = (tq1_gb * 1e9 / 2) ** 0.5
tq1_block_mb = 2 * tq1_n * tq1_block / 1e6
