"""The package's layout: no import circles, nothing that names a course, docstrings everywhere.

The modules of gradekit/ follow the data flow (template -> variant -> release ->
submission -> sandbox -> graders -> results -> gradebook / feedback / report);
an import that runs backwards against it shows up here as a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gradekit"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports() -> dict[str, set[str]]:
    """gradekit module -> the gradekit modules it imports (at any depth: lazy imports count)."""
    graph: dict[str, set[str]] = {}
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        tree = ast.parse(path.read_text())
        for block in [n for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)]:
            block.body = []  # imports for type hints only are not imports at run time
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                targets = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if target in modules and target != name:
                    found.add(target)
        graph[name] = found
    return graph


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


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's __init__ re-exporting its own submodules is not a circle of the data flow."""
    return {name: {t for t in targets if not (name.startswith(t + ".") and t != "gradekit")}
            for name, targets in graph.items()}


def test_no_import_cycles():
    cycle = _cycle(_without_package_inits(_imports()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_every_module_says_what_it_owns():
    missing = [str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
               if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text())) is None]
    assert not missing, f"modules without a docstring: {missing}"


def test_the_framework_names_no_course():
    """Promise 5: nothing in gradekit/ knows the course it ships with."""
    named = [str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")
             if "self_attention" in p.read_text() or "multi_head_attention" in p.read_text()]
    assert not named, f"gradekit/ names a course assignment in {named}"
