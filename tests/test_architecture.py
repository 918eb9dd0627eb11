"""The package's layers: imports point down only, no two modules import each other at run time, and
no module outside ``families/`` and ``apps/`` names a family (families come from entry points)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "alc_dask"

LAYERS = (
    {"__init__", "errors", "shown", "strict_numbers", "seeds", "splitmix", "plugins"},
    {"measure"},
    {"data"},
    {"anonymize", "neighbors"},
    {"attacks"},
    {"baseline"},
    {"families"},
    {"results", "jobs", "utility"},
    {"verdict"},
    {"engine"},
    {"report", "cli_exit_codes", "cli_options"},
    {"apps"},
    {"cli", "testing", "reference"},
)
"""Bottom to top: a unit (a subpackage or a top-level module) imports from its own layer or below.
The package itself is at the bottom: it imports its lazy exports only when they are first used."""

NAMED_ELSEWHERE = {
    ("attacks/base.py", "membership"): "AttackKind.MEMBERSHIP, the kind of attack a membership family runs",
    ("measure/__init__.py", "alc"): "the measure's own function, exported",
    ("measure/risk.py", "alc"): "the argument's name in an error message",
    ("report/regulator.py", "linkability"): "WP29's criterion, which families declare they answer",
    ("report/regulator.py", "inference"): "WP29's criterion",
    ("report/regulator.py", "membership"): "the ICO's criterion",
    ("report/regulator.py", "identification"): "the ICO's criterion",
}
"""Strings equal to a family's name that name something else: a criterion, a measure, an attack kind."""


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(("alc_dask", *path.relative_to(PACKAGE).with_suffix("").parts))
        found[name.removesuffix(".__init__")] = path
    return found


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:``: annotations only, never run."""
    hidden = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            hidden |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    return hidden


def run_time_imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports when it runs (at the top or in a function)."""
    tree = ast.parse(path.read_text())
    hidden = _type_checking_nodes(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    imported = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name.startswith("alc_dask") and name != module:
            imported.add(name)
    return imported


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    known = modules()
    return {module: run_time_imports(module, path, known) for module, path in known.items()}


def test_every_unit_has_a_layer():
    units = {unit(module) for module in modules()}
    placed = set().union(*LAYERS)
    assert units <= placed, f"place {sorted(units - placed)} in LAYERS"


def test_imports_point_down_only(graph):
    layer = {name: level for level, names in enumerate(LAYERS) for name in names}
    upward = sorted(f"{module} -> {target}" for module, targets in graph.items() for target in targets if layer[unit(target)] > layer[unit(module)])
    assert not upward


def test_no_import_cycle_at_run_time(graph):
    """A cycle hidden behind a deferred import is still a cycle: each module must make sense without the other."""
    cycles = [sorted(component) for component in strongly_connected(graph) if len(component) > 1]
    assert not cycles


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's components, iteratively (the graph is a few hundred modules deep)."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def test_the_cycle_finder_finds_a_cycle():
    found = strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert {"a", "b", "c"} in found and {"d"} in found


def family_names_in_code(path: Path, families: set[str]) -> set[str]:
    """String constants equal to a family's name, docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    docstrings |= {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in families and id(node) not in docstrings
    }


def test_no_module_outside_families_and_apps_names_a_family():
    from alc_dask.families import family_names

    families = set(family_names())
    named = sorted(
        (str(path.relative_to(PACKAGE)), name)
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in ("families", "apps")
        for name in family_names_in_code(path, families)
    )
    assert [entry for entry in named if entry not in NAMED_ELSEWHERE] == []
    assert set(NAMED_ELSEWHERE) <= set(named), "an allowed name is gone: drop it from NAMED_ELSEWHERE"


def test_the_name_finder_sees_code_and_skips_docstrings(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""alc"""\n\ndef f(row):\n    """membership"""\n    return row["family"] == "disclosure"\n')
    assert family_names_in_code(module, {"alc", "membership", "disclosure"}) == {"disclosure"}
