# relation: where: right except below the diagonal, beyond the last two keys (False there) -- the concept card's misconception that attention is local
# %% causal_mask
def causal_mask(n):
    """A token sees itself and the two tokens before it: "attention looks at the neighbours"."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (j <= i) & (j >= i - 2)
