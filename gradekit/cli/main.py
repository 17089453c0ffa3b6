"""The ``gradekit`` command: the parser, and one line and an exit status for every foreseen failure.

Each verb is a module of :mod:`gradekit.cli` with ``add_parser(sub)`` and
``run(args)``. Every failure gradekit foresees is a GradekitError: one line on
stderr and a non-zero exit status, 2 for a mistake in the command or its
input, 3 for a broken course or machine (see :mod:`gradekit.errors`).
"""

from __future__ import annotations

import argparse
import sys

from gradekit.cli import (
    answer_key,
    autograde,
    check,
    collect,
    demo,
    doctor,
    export,
    feedback,
    generate,
    grade,
    groups,
    hub_config,
    hub_exchange,
    integrity,
    lti,
    new,
    quickstart,
    receipt,
    release,
    release_feedback,
    report,
    serve,
    student_config,
    translate,
)
from gradekit.errors import GradekitError

# in the order of the flow, as `gradekit --help` lists them
VERBS = (
    quickstart,
    new,
    check,
    translate,
    generate,
    answer_key,
    release,
    collect,
    autograde,
    serve,
    hub_exchange,
    groups,
    grade,
    feedback,
    release_feedback,
    integrity,
    report,
    export,
    receipt,
    student_config,
    hub_config,
    lti,
    doctor,
    demo,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradekit",
        description=(
            "Autograded assignments with every student's own numbers: generate and release the variants, grade "
            "the class in sandboxes with hidden graders, write feedback, the class report and copy detection. "
            "Run it in the course directory (or give --course). Exit status: 0 done, 1 a check failed, "
            "2 a mistake in the command or its input, 3 a broken course or machine."
        ),
    )
    parser.add_argument("--version", action=_Version, help="print gradekit's version and exit")
    parser.add_argument("--course", default=".", help="course directory (default: the current one)")
    sub = parser.add_subparsers(dest="command", required=True)
    for verb in VERBS:
        verb.add_parser(sub)
    return parser


def version() -> str:
    """The installed distribution's version (what pip installed: a wheel, a checkout), else the package's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    from gradekit import __version__

    try:
        return installed("gradekit")
    except PackageNotFoundError:  # the sources on sys.path, not installed
        return __version__


class _Version(argparse.Action):
    """``--version``: looked up when asked for, not at each start."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"gradekit {version()}")
        parser.exit()


def _one_blas_thread() -> None:
    """numpy's BLAS starts a thread per core on import, which spins while it waits for work: a
    tenth of a CPU second of every gradekit process that imports numpy, for nothing -- they compute
    on small arrays, one process per core. A setting of the user's own is kept."""
    import os

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def main(argv: list[str] | None = None) -> int:
    from gradekit.imports import nbgrader_lazily
    from gradekit.timeline import mark
    from gradekit.web.lifetime import remember

    remember()  # a service's hub, before anything slow (gradekit.web.lifetime)
    mark("coordinator", "main")
    nbgrader_lazily()  # nbgrader's modules without its Jupyter server extensions (gradekit.imports)
    _one_blas_thread()
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except GradekitError as exc:
        print(f"gradekit: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("gradekit: interrupted; results recorded so far are kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
