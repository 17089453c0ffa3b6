# names: that is linear attention; FlashAttention's output equals full attention
# FlashAttention taken for an approximation; the other four answered right, by the text of the option.
# %% concepts
mc_cost = "Every token scores every token: the n × n table grows as n², in time and memory."
mc_flash = "Exactness: it approximates the softmax with a cheaper function, so the output is only close."
mc_sparse = "Direct links: pairs outside the pattern meet only through other tokens or layers."
mc_linear = "φ(K)ᵀV is summed once for all queries, so no n × n table forms; the softmax is approximated."
mc_window = "O(n·w) scores; a token sees past w tokens back only through the layers above it."
