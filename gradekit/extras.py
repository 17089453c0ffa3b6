"""gradekit's optional parts, one extra each, and the one line a command says when one is missing.

The default install grades a class and serves a student's Jupyter (the exchange's client classes
and the Lab server extension). Each part below needs more, installed as an extra of the package,
as ``dask[distributed]`` or ``pandas[excel]`` do::

    pip install "gradekit[groups]"        # or several: "gradekit[cluster,postgres]"; all of them: "gradekit[all]"

A command that needs a missing part calls :func:`require` before it starts, and stops with one
line that names the extra (a :class:`~gradekit.errors.MissingExtra`, exit 3), never a traceback
from deep inside. :func:`require` only looks for the modules (``importlib.util.find_spec``): it
imports nothing, so it costs microseconds.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from gradekit.errors import MissingExtra


@dataclass(frozen=True)
class Extra:
    name: str
    modules: tuple[str, ...]  # top-level modules it installs, looked for in this order
    what: str  # what needs it, as the line says it


EXTRAS: dict[str, Extra] = {
    extra.name: extra
    for extra in (
        Extra("cluster", ("distributed", "dask"), "grading on a Dask cluster (--scheduler)"),
        Extra("postgres", ("psycopg",), "a gradebook on PostgreSQL"),
        Extra("groups", ("sklearn", "scipy"), "grouping free-text answers"),
        Extra("hub", ("jupyterhub", "tornado"), "a JupyterHub service"),
        Extra("lti", ("pylti1p3", "ltiauthenticator", "jwcrypto", "requests"), "the course inside an LMS (LTI 1.3)"),
    )
}


def missing(name: str) -> str | None:
    """The first module of extra ``name`` that is not installed, or None when all are."""
    for module in EXTRAS[name].modules:
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except (ImportError, ValueError):  # a broken install counts as missing
            return module
    return None


def require(name: str, what: str | None = None) -> None:
    """Raise MissingExtra (one line naming the extra) unless extra ``name`` is installed."""
    module = missing(name)
    if module is not None:
        needed = what or EXTRAS[name].what
        raise MissingExtra(
            f'{needed} needs gradekit\'s {name!r} extra ({module} is not installed): pip install "gradekit[{name}]"'
        )
