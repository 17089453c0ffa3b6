"""The package's layout: layers of folders that follow the data flow, no import circles, no course named;
and the design's intent, pairs that never import each other (:data:`NEVER`).

gradekit/ is laid out as the flow (template -> variant -> release -> submission ->
sandbox -> graders -> results -> gradebook / feedback / report). :data:`LAYERS`
says where each folder sits (a top-level module counts as a folder of its own): a
module may import modules of its own folder, of its layer and of the layers below,
never above; and the folders' own graph has no circle, so no two folders of a layer
import each other. Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` too,
so those edges count as well; a package ``__init__`` that imports nothing (a
docstring map) runs no code and is exempt.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gradekit"

# lowest first: every folder of gradekit/ ("name/") and every top-level module ("name.py") in one layer
LAYERS: list[tuple[str, list[str]]] = [
    ("foundations", ["__init__.py", "errors.py", "extras.py", "atomic.py", "timeline.py", "imports.py", "pool.py",
                     "changes.py"]),
    ("what every step reads", ["i18n/", "notebook/", "untrusted.py", "results.py"]),
    ("the sandbox", ["sandbox/"]),
    ("the course", ["settings.py", "course.py"]),
    ("the web services' ground: the hub's login, a service's lifetime", ["web/"]),
    ("what a student hands in, what a grader imports", ["intake/", "graders/"]),
    ("the exchange: a hand-in from arrival to acceptance, feedback back", ["exchange/"]),
    ("authoring", ["authoring/"]),
    ("the gradebook", ["gradebook/"]),
    ("release", ["release/"]),
    ("grading", ["grading/"]),
    ("runners, copy detection", ["runners/", "integrity/"]),
    ("what people read", ["pages/"]),
    ("handing out, grading by hand, QA, the doctor", ["handout/", "manual/", "qa/", "doctor/"]),
    ("the live service, and the LMS's (LTI)", ["service/", "lti/"]),
    ("the hub's web services", ["hub/"]),
    ("command line", ["cli/", "__main__.py"]),
]

# edges that run up the layers on purpose, each with its reason
DECLARED: dict[tuple[str, str], str] = {}

# What the design says must never import what, whatever the layers would let it: (importers, imported,
# why), each side a tuple of module prefixes ("gradekit.pages" is the folder and all in it). An import
# counts wherever it is written -- at the top, in a function, under TYPE_CHECKING.
HUB_SERVER = tuple(f"gradekit.exchange.hub.{m}" for m in ("server", "api", "handins", "gate", "store"))
STUDENT_SIDE = ("gradekit.exchange.hub.student", "gradekit.exchange.hub.wire", "gradekit.exchange.filesystem.student",
                "gradekit.handout.lab")
NEVER: list[tuple[tuple[str, ...], tuple[str, ...], str]] = [
    (("gradekit.pages",), ("gradekit.grading",),
     "the pages are functions of results: grading's wording is handed in (gradekit.grading.told)"),
    (("gradekit.exchange",), ("gradekit.gradebook", "gradekit.pages"),
     "the exchange takes due dates and pages as arguments: it knows no gradebook and renders nothing"),
    (HUB_SERVER, ("gradekit.service", "gradekit.grading", "gradekit.runners", "gradekit.sandbox"),
     "the hub exchange's server, a small security service, runs nothing of grading"),
    (("gradekit.service",), ("gradekit.exchange.filesystem", "gradekit.exchange.hub"),
     "the service sees an exchange through its interface alone: a hand-in's reference is its exchange's to read"),
    (("gradekit.gradebook",), ("gradekit.exchange", "gradekit.service", "gradekit.pages"),
     "the gradebook records results; how hand-ins arrive and go back is none of its business"),
    (STUDENT_SIDE, ("gradekit.grading", "gradekit.graders", "gradekit.sandbox", "gradekit.runners",
                    "gradekit.gradebook", "gradekit.service", "gradekit.pages", "gradekit.exchange.hub.server",
                    "gradekit.exchange.hub.store", "gradekit.exchange.ledger"),
     "a student's server imports nothing of the course's side"),
    (("gradekit.exchange.hub.wire",), ("gradekit",),
     "the wire is the standard library alone: the server and every client read the same contract"),
    (("gradekit.web",), ("gradekit.exchange", "gradekit.service", "gradekit.hub"),
     "the web services' ground knows none of the services built on it"),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(modules: dict[str, Path] | None = None, type_hints: bool = False) -> dict[str, set[str]]:
    """gradekit module -> the gradekit modules importing it runs (at any depth: lazy imports
    count; a.b.c brings a.b and a with it); ``type_hints``: those imported for type hints only
    (under TYPE_CHECKING) too."""
    modules = modules or _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for target in _import_targets(path.read_text(), package, type_hints):
            if target in modules:
                found |= _with_parents(target, modules)
        found.discard(name)
        graph[name] = {t for t in found if not name.startswith(t + ".")}   # one's own packages run first
    return graph


@functools.cache
def _import_targets(text: str, package: str, type_hints: bool) -> tuple[str, ...]:
    """Every name an import statement of a module (its source ``text``, in ``package``) may bring: each
    module's source is parsed once however many of the tests ask (the parsing is their CPU)."""
    targets: list[str] = []
    tree = ast.parse(text)
    for block in [n for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)]:
        if not type_hints:
            block.body = []  # imports for type hints only are not imports at run time
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets += [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
    return tuple(targets)


def _with_parents(target: str, modules) -> set[str]:
    parts = target.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in modules}


def _runs_nothing(module: str, modules: dict[str, Path]) -> bool:
    """A package __init__ with no import and no code but its docstring (and a lone __all__)."""
    path = modules[module]
    if path.name != "__init__.py":
        return False
    body = ast.parse(path.read_text()).body
    return all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body)


def _home(module: str) -> str:
    """The folder a module sits in ("grading/" for gradekit.grading.harness.entry), or the top-level
    module itself ("course.py"; "__init__.py" for the package)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__.py"
    return f"{parts[1]}/" if (PACKAGE / parts[1]).is_dir() else f"{parts[1]}.py"


def _layer(module: str) -> int:
    home = _home(module)
    found = [index for index, (_, homes) in enumerate(LAYERS) if home in homes]
    assert found, f"{module}: its folder {home} is in no layer of LAYERS"
    return found[0]


def _folder_graph(modules: dict[str, Path], graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Folder -> the folders its modules import (edges to a package __init__ that runs nothing left out)."""
    folders: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph.items():
        for target in targets:
            if _home(target) != _home(module) and not _runs_nothing(target, modules):
                folders[_home(module)].add(_home(target))
    return folders


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycles():
    """Package __init__ edges included: `from gradekit.i18n.text import _` runs gradekit/i18n/__init__."""
    cycle = _cycle(_imports())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_the_package_init_an_import_runs(tmp_path):
    """The blind spot of the old test: `from p.q import x` in r runs p/__init__, an edge r -> p."""
    for rel, text in {"p/__init__.py": "from p.s import y\n", "p/q.py": "x = 1\n", "p/s.py": "from r import z\n",
                      "r.py": "from p.q import x\nz = 2\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    modules = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
               for p in tmp_path.rglob("*.py")}
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "p"
    try:
        graph = _imports(modules)
    finally:
        PACKAGE = saved
    assert "p" in graph["r"] and _cycle(graph) is not None   # r -> p -> p.s -> r


def test_every_module_has_a_home_and_imports_only_downwards():
    modules = _modules()
    graph = _imports(modules)
    upward = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if _layer(target) > _layer(module) and not _runs_nothing(target, modules) \
                    and (module, target) not in DECLARED:
                upward.append(f"{module} ({LAYERS[_layer(module)][0]}) -> {target} ({LAYERS[_layer(target)][0]})")
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def test_every_folder_sits_in_one_layer():
    """A layer holds whole folders: none is missing, none is listed twice, none is lifted out by module."""
    listed = [home for _, homes in LAYERS for home in homes]
    present = {p.name + ("/" if p.is_dir() else "") for p in PACKAGE.iterdir()
               if (p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py"}
    assert sorted(listed) == sorted(set(listed)), "listed twice: " + str(sorted({h for h in listed if listed.count(h) > 1}))
    assert set(listed) == present, f"missing: {sorted(present - set(listed))}; not in gradekit/: {sorted(set(listed) - present)}"


def test_the_folders_import_each_other_one_way():
    """The folders' graph has no circle: no two folders import each other, within a layer or across."""
    modules = _modules()
    folders = _folder_graph(modules, _imports(modules))
    both = sorted(f"{a} <-> {b}" for a in folders for b in folders[a] if a < b and a in folders.get(b, ()))
    assert not both, f"folders that import each other: {both}"
    cycle = _cycle(folders)
    assert cycle is None, "a circle of folders: " + " -> ".join(cycle)


def test_the_folder_graph_sees_a_circle_through_three_folders():
    graph = _folder_graph({m: Path(m) for m in ("gradekit.a.x", "gradekit.b.y", "gradekit.c")},
                          {"gradekit.a.x": {"gradekit.b.y"}, "gradekit.b.y": {"gradekit.c"}, "gradekit.c": {"gradekit.a.x"}})
    assert _cycle(graph) is not None and _cycle({"a/": {"b/"}, "b/": set()}) is None


def test_declared_upward_edges_still_exist():
    graph = _imports()
    stale = [f"{a} -> {b}" for a, b in DECLARED if b not in graph.get(a, set())]
    assert not stale, f"DECLARED lists edges the code no longer has: {stale}"


def test_subpackage_inits_run_no_code():
    """A subpackage __init__ is a map of its modules (a docstring): importing a module of it costs nothing
    more. The one exception is the author's gradekit.i18n, which re-exports _ and N_ from its leaf."""
    modules = _modules()
    heavy = [m for m, p in modules.items() if p.name == "__init__.py" and m.count(".") >= 1
             and not _runs_nothing(m, modules) and m != "gradekit.i18n"]
    assert not heavy, f"package __init__s that run code: {heavy}"
    assert _imports(modules)["gradekit.i18n"] <= {"gradekit.i18n.text"}


def test_top_level_is_a_handful():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "atomic.py", "changes.py", "course.py", "errors.py", "extras.py", "imports.py",
                   "pool.py", "results.py", "settings.py", "timeline.py", "untrusted.py"], top


def test_every_module_says_what_it_owns():
    missing = [str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
               if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text())) is None]
    assert not missing, f"modules without a docstring: {missing}"


def test_every_test_file_the_package_names_exists():
    """A docstring that points to the test holding a module to something (an oracle, a promise)
    points to one that is there: seven once named test files that had moved or never existed."""
    import re

    tests = PACKAGE.parent / "tests"
    named = {(str(p.relative_to(PACKAGE.parent)), m) for p in PACKAGE.rglob("*") if p.suffix in (".py", ".html", ".tmpl")
             for m in re.findall(r"\btests/[\w./-]*\w", p.read_text(encoding="utf-8"))}
    assert named, "the package names no test file: the pattern is broken"
    missing = sorted(f"{where}: {path}" for where, path in named if not (tests.parent / path).exists())
    assert not missing, "named but not there: " + "; ".join(missing)


def test_the_framework_names_no_course():
    """Promise 6: nothing in gradekit/ knows the course it ships with."""
    named = [str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
             if any(a in p.read_text() for a in ("self_attention", "multi_head_attention", "long_context"))]
    assert not named, f"gradekit/ names a course assignment in {named}"


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _broken_nevers(graph: dict[str, set[str]], never=None) -> list[str]:
    """Each import that a pair of NEVER forbids (``module -> target: why``), its deepest module named (not
    the packages an import runs on its way to it)."""
    found = []
    for importers, imported, why in never if never is not None else NEVER:
        for module, targets in sorted(graph.items()):
            if _within(module, importers):
                for target in sorted(targets - _packages(targets)):
                    if _within(target, imported) and not _within(target, importers):
                        found.append(f"{module} -> {target}: {why}")
    return sorted(set(found))


def _packages(targets: set[str]) -> set[str]:
    """The targets that are only the packages a deeper target of the same import runs on its way."""
    return {t for t in targets if any(other.startswith(t + ".") for other in targets)}


def test_the_pairs_that_never_import_each_other_do_not():
    """The design's intent (NEVER), type hints included: every import is counted, wherever it is."""
    broken = _broken_nevers(_imports(type_hints=True))
    assert not broken, "imports the design forbids:\n" + "\n".join(broken)


def test_a_never_pair_is_caught_even_under_type_checking(tmp_path):
    """A planted import fails it: pages importing grading for a type hint only, and the exchange importing
    the gradebook in a function."""
    files = {
        "gradekit/__init__.py": "",
        "gradekit/pages/__init__.py": '"""map"""\n',
        "gradekit/pages/feedback.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from gradekit.grading.diagnosis import notes\n",
        "gradekit/grading/__init__.py": '"""map"""\n',
        "gradekit/grading/diagnosis.py": "notes = 1\n",
        "gradekit/exchange/__init__.py": '"""map"""\n',
        "gradekit/exchange/ledger.py": "def f():\n    from gradekit.gradebook import read\n",
        "gradekit/gradebook/__init__.py": '"""map"""\n',
        "gradekit/gradebook/read.py": "x = 1\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    modules = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
               for p in tmp_path.rglob("*.py")}
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "gradekit"
    try:
        at_run_time, with_hints = _imports(modules), _imports(modules, type_hints=True)
    finally:
        PACKAGE = saved
    assert _broken_nevers(at_run_time) == [
        "gradekit.exchange.ledger -> gradekit.gradebook.read: " + NEVER[1][2]]
    assert _broken_nevers(with_hints) == [
        "gradekit.exchange.ledger -> gradekit.gradebook.read: " + NEVER[1][2],
        "gradekit.pages.feedback -> gradekit.grading.diagnosis: " + NEVER[0][2]]


def test_only_the_delivery_hands_a_page_to_an_exchange():
    """One way back: outside the exchange's own implementations (a give_feedback that delegates, the hub
    server storing what it was given), nothing but gradekit.service.delivery.deliver calls give_feedback,
    and nothing but the delivery (and gradekit check's own pages, never handed out) writes feedback pages:
    no path can forget the disclosure policy."""
    allowed_writers = {"gradekit.service.delivery", "gradekit.qa.keep", "gradekit.pages.feedback"}
    found = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text())
        for func in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            for call in [n for n in ast.walk(func) if isinstance(n, ast.Call)]:
                called = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                if called == "give_feedback" and not (
                    (name, func.name) == ("gradekit.service.delivery", "deliver")
                    or func.name == "give_feedback"  # an exchange's own, delegating
                    or _within(name, HUB_SERVER)  # the service storing the pages it was given
                ):
                    found.append(f"{name}.{func.name} calls give_feedback")
                if called in ("write_feedback", "render_feedback") and name not in allowed_writers:
                    found.append(f"{name}.{func.name} calls {called}")
    assert not found, "ways back around the delivery: " + "; ".join(sorted(set(found)))
