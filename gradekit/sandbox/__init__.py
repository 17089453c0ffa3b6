"""Running the student's code: a bubblewrap sandbox, and the narrow protocol to it.

bwrap.py       the sandbox's command line, its limits, the warm zygote
client.py      Sandbox: the trusted side (run cells, call functions, deadlines)
protocol.py    what crosses: JSON and .npy arrays only, frames of a bounded size
worker.py      the untrusted side, inside the sandbox
early.py       sandboxes started before the grading code has loaded
"""
