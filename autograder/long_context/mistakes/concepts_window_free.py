# names: the keys outside the window get no weight at all
# A sliding window taken to cost nothing but time; the other four answered right, by the text of the option.
# %% concepts
mc_cost = "Every token scores every token: the n × n table grows as n², in time and memory."
mc_flash = "Nothing in the result: the scores are computed block by block and recomputed, not kept."
mc_sparse = "Direct links: pairs outside the pattern meet only through other tokens or layers."
mc_linear = "φ(K)ᵀV is summed once for all queries, so no n × n table forms; the softmax is approximated."
mc_window = "O(n·w) scores, and nothing is lost, because a window's softmax equals full attention."
