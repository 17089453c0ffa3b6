# names: counted n numbers instead of n²
# The memory taken to grow as n, in both directions; the block's scores (n × block) right.
# %% tq1
tq1_mb = 2 * tq1_n / 2 ** 20
tq1_max_n = tq1_gb * 2 ** 30 / 2
tq1_block_mb = 2 * tq1_n * tq1_block / 2 ** 20
