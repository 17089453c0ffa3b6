"""Importing the parts of nbgrader (and nbformat) gradekit uses, without the rest.

``import nbgrader.api`` first runs nbgrader's package ``__init__``, which
loads its Jupyter server extensions -- tornado handlers, every nbgrader app,
nbconvert and its exporters: over a second of CPU that gradekit never uses.
:func:`nbgrader_api` puts a lazy ``nbgrader`` package in ``sys.modules`` whose
``__init__`` has not run yet, and imports ``nbgrader.api`` under it. The first
time anything asks the package for a name it does not have (``nbgrader.__version__``,
a server extension hook), the real ``__init__`` runs in that same module
object, so it becomes the real package, with ``api`` already in it. The
submodules are nbgrader's own files, unchanged; the pinned version
(constraints.txt) and tests/test_private_apis.py cover them.

:func:`course_files` imports a course's own Python files (its graders and their
helpers, its reference solutions, its ``params.py``) without writing their byte
code beside them; :func:`course_module` runs one such file as a module.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import threading
import types
from collections.abc import Iterator

_LOCK = threading.Lock()  # one import at a time: a module half-imported by one thread is not the module
_COURSE_LOCK = threading.Lock()
_open_blocks = 0  # course_files() blocks open in this process, all threads
_bytecode_before = False  # sys.dont_write_bytecode as the first of them found it


def nbgrader_api():
    """The ``nbgrader.api`` module (Gradebook and its tables); safe to call from several threads."""
    with _LOCK:
        return without_package_init("nbgrader", "nbgrader.api")


def nbgrader_lazily() -> None:
    """From now on this process imports nbgrader's modules (its exchange, its preprocessors) without
    running the package's ``__init__`` first (see above): a gradekit command that releases, collects
    or strips a notebook imports 870 modules instead of 1,390 (gradekit release: 0.64 s of CPU, was
    0.95). What asks the package itself for a name still gets the real package."""
    with _LOCK:
        without_package_init("nbgrader", "nbgrader._version")


def without_package_init(package: str, module: str):
    """``package.module``, imported without running ``package/__init__.py`` yet (see above)."""
    if module in sys.modules:
        return sys.modules[module]
    if package in sys.modules:
        return importlib.import_module(module)
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return importlib.import_module(module)
    lazy = types.ModuleType(package)
    lazy.__path__ = list(spec.submodule_search_locations)
    lazy.__spec__, lazy.__file__, lazy.__loader__ = spec, spec.origin, spec.loader

    def finish_init(name: str):
        """A submodule is imported as it is asked for; for any other name, run the package's
        real __init__ in this module, once, then answer."""
        if not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            return importlib.import_module(f"{package}.{name}")
        del lazy.__dict__["__getattr__"]
        assert spec.loader is not None  # find_spec found the package: its loader runs the __init__
        spec.loader.exec_module(lazy)
        return getattr(lazy, name)

    lazy.__getattr__ = finish_init  # type: ignore[method-assign]  # a module's __getattr__ (PEP 562)
    sys.modules[package] = lazy
    try:
        return importlib.import_module(module)
    except BaseException:
        if sys.modules.get(package) is lazy:
            del sys.modules[package]
        raise


@contextlib.contextmanager
def course_files() -> Iterator[None]:
    """A block that imports a course's own files without writing ``__pycache__/`` beside them.

    Grading and generating leave the instructor's folders as they found them: a
    course on a read-only mount, in a git checkout, or in a folder other accounts
    read gets no byte code of its graders or reference solutions, whatever the
    environment says of byte code. Python's flag is process-wide: it stays set while
    any thread is in such a block, and goes back to what it was after the last."""
    global _open_blocks, _bytecode_before
    with _COURSE_LOCK:
        if _open_blocks == 0:
            _bytecode_before = sys.dont_write_bytecode
        _open_blocks += 1
        sys.dont_write_bytecode = True
    try:
        yield
    finally:
        with _COURSE_LOCK:
            _open_blocks -= 1
            if _open_blocks == 0:
                sys.dont_write_bytecode = _bytecode_before


def course_module(name: str, path) -> types.ModuleType:
    """The course's Python file ``path`` run as a module named ``name`` (not put in ``sys.modules``),
    in :func:`course_files`; what the file raises, it raises."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file's: a SourceFileLoader
    module = importlib.util.module_from_spec(spec)
    with course_files():
        spec.loader.exec_module(module)
    return module
