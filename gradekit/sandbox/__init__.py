"""Running the student's code: a bubblewrap sandbox, and the narrow protocol to it.

The trusted side (the grading process):
client.py      Sandbox: what the graders use (run cells, call functions, map), the student's objects
process.py     the sandbox's processes: the warm zygote's life, a child forked per submission
roundtrip.py   a request sent and its reply read, within its deadline; failures made the student's, counted
framing.py     what a request's frames hold; a map's requests and its progress notes
crossing.py    what crosses for a grader's argument: plain data, the student's objects and functions, callbacks
callbacks.py   the grader's functions the student's code calls back, run here within their limits
memory.py      the process's address-space cap while a grader's function runs for the student's code
bwrap.py       the sandbox's command line, its limits, the warm zygote
early.py       sandboxes started before the grading code has loaded
limits.py      Limits: the sandbox's limits, named as the course sets them

Both sides:
protocol.py    what crosses: JSON and .npy arrays only, frames of a bounded size

The untrusted side, inside the sandbox (bwrap.WORKER_FILES: the standard library, numpy and IPython only):
worker.py        the zygote: numpy and IPython imported once, a child forked per submission, cleaned up after
worker_child.py  a child: the grader's requests answered one by one (run, has, get, call, map, ...)
"""
