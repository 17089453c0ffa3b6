"""``gradekit check``'s warning for a hidden test that compares several cases in one loop.

The first comparison that fails ends a test: its later cases never reach the feedback, the student
reads one failed check, and the evidence of one input names no mistake and relates nothing (gradekit
runs such a test again past its first failure for evidence: the further cases are weighed, never
shown). One case per test -- ``@pytest.mark.parametrize`` -- gives each its own check. This reads
the graders' source (nothing is run): a ``for`` loop in a ``test_*`` function whose body compares
(``check.array``, ``check.arrays``, ``check.scalar``, ``check.choice``, ``check.option``), itself or
through a helper of the module, is one row, with the parametrized form to write instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

from gradekit.qa.rows import Row

COMPARISONS = frozenset({"array", "arrays", "scalar", "choice", "option"})


def loop_rows(graders: Path, root: Path) -> list[Row]:
    """One warning row per test that loops over cases it compares (see the module's docstring)."""
    rows = []
    for path in sorted(graders.glob("test_*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue  # a grader that does not load is reported by the check's other rows
        comparing = _comparing(tree)
        for test in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")):
            loop = next((n for n in ast.walk(test) if isinstance(n, ast.For) and _compares(n, comparing)), None)
            if loop is None:
                continue
            where = f"{path.relative_to(root)}::{test.name}"
            rows.append(
                Row(
                    f"{where}: cases in one loop",
                    None,
                    f"line {loop.lineno} compares several cases in one loop: the first that fails stops the test, "
                    "the student reads one failed check, and one input names no mistake (gradekit runs the test "
                    f"again past it, for evidence only). One case per test gives each its own check: "
                    f"{parametrized(test, loop)}",
                    warn=True,
                )
            )
    return rows


def parametrized(test: ast.FunctionDef, loop: ast.For) -> str:
    """The test written with one case per run: ``@pytest.mark.parametrize("shape", SHAPES)`` and the
    loop's name among the test's arguments."""
    names = [n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)]
    cases = ast.unparse(loop.iter)
    arguments = ", ".join([a.arg for a in test.args.args] + names)
    quoted = ", ".join(f'"{n}"' for n in names) if len(names) > 1 else f'"{names[0]}"' if names else '"case"'
    quoted = f"({quoted})" if len(names) > 1 else quoted
    return f"@pytest.mark.parametrize({quoted}, {cases}) def {test.name}({arguments}): ...the loop's body, once"


def _comparing(tree: ast.Module) -> set[str]:
    """The module's functions that compare, directly or through another of them."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    found = {name for name, fn in functions.items() if _direct(fn)}
    while True:
        more = {name for name, fn in functions.items() if name not in found and _calls(fn, found)}
        if not more:
            return found
        found |= more


def _direct(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in COMPARISONS
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "check"
        for n in ast.walk(node)
    )


def _calls(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names for n in ast.walk(node))


def _compares(loop: ast.For, comparing: set[str]) -> bool:
    body = ast.Module(body=list(loop.body), type_ignores=[])
    return _direct(body) or _calls(body, comparing)
