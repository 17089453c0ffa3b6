"""Writing files so that a reader never sees half of one: atomic writes, notebooks as JSON."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import nbformat


def atomic_write(path: Path, text: str) -> None:
    """Write to a temporary file in the same directory, then rename over ``path``."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def notebook_json(nb: nbformat.NotebookNode) -> str:
    """A notebook as nbformat 4 JSON, without nbformat's per-write validation.

    The cells come from an already validated template through nbgrader's
    preprocessors, so validating every student's copy again only costs time;
    json's C encoder (no indentation) is several times faster than nbformat.writes.
    """
    return json.dumps(nb, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_notebooks(directory: Path, notebooks: dict[str, nbformat.NotebookNode]) -> list[Path]:
    """Write ``<name>.ipynb`` for each notebook, each atomically."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, nb in notebooks.items():
        path = directory / f"{name}.ipynb"
        atomic_write(path, notebook_json(nb))
        paths.append(path)
    return paths
