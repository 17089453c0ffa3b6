"""Where submissions are graded: runners behind one streaming interface.

base.py        Runner (submit one submission, take results as they finish), the wire format
local.py       InProcess (this process) and LocalPool (worker processes pinned to cores)
cluster.py     DaskCluster: one task per submission on a Dask distributed cluster
batch.py       a class: what changed since the last grading, then a runner for the rest
warm.py        what a local pool's fork server prepares before the first worker forks
forkserver.py  starting that fork server without importing anything heavy
cores.py       pinning a grading process and its sandbox to one core
"""
