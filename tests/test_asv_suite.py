"""The asv suite (benchmarks/asv/suite) runs: every benchmark's setup and body once, on tiny inputs,
so a change of an API it calls fails here and not only in ``asv run``. Long: each first call compiles
its Numba code (about 30 s of CPU)."""

import importlib
import inspect
import itertools
import pkgutil
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[1] / "benchmarks" / "asv"
PREFIXES = ("time_", "track_", "peakmem_", "mem_", "timeraw_")


def _modules(monkeypatch):
    monkeypatch.syspath_prepend(str(SUITE))
    suite = importlib.import_module("suite")
    monkeypatch.setattr(importlib.import_module("suite.inputs"), "SIZE", 0.01)
    return [importlib.import_module(f"suite.{info.name}") for info in pkgutil.iter_modules(suite.__path__) if info.name.startswith("bench_")]


def _cases(module):
    """(callable's name, object, params) of every benchmark of ``module``."""
    for name, member in vars(module).items():
        if inspect.isclass(member) and member.__module__ == module.__name__:
            grid = member.params if hasattr(member, "params") else []
            grid = [grid] if grid and not isinstance(grid[0], list) else grid
            for combination in itertools.product(*grid):
                for method in (m for m in vars(member) if m.startswith(PREFIXES)):
                    yield f"{member.__name__}.{method}{list(combination)}", member, method, combination
        elif name.startswith(PREFIXES) and callable(member):
            yield name, None, member, ()


@pytest.mark.long
def test_every_benchmark_runs_once(monkeypatch, capsys):
    ran = []
    for module in _modules(monkeypatch):
        for label, owner, body, combination in _cases(module):
            if owner is None:  # timeraw_: the code asv times in a fresh interpreter
                exec(compile(body(), label, "exec"), {})
            else:
                bench = owner()
                bench.setup(*combination)
                result = getattr(bench, body)(*combination)
                if body.startswith("track_"):
                    assert result == result and result is not None, f"{label}: no number"
            ran.append(label)
    assert any(label.startswith("GowerKernel.track_cells_per_second") for label in ran)
    assert len(ran) >= 15, ran
