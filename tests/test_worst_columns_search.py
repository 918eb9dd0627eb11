"""The worst-columns search without a cluster: which subsets it tries and chooses, the seeded halves,
and bad input refused in one line before any cluster starts."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from alc_dask.apps.check import read_inputs
from alc_dask.apps.worst_columns import DEFAULT_BUDGET, DEFAULT_MAX_SIZE, DEFAULT_TARGETS, request_of
from alc_dask.apps.worst_columns_command import worst_columns as command
from alc_dask.apps.worst_columns_measures import HELD_OUT, SELECTION, Halves, Measured
from alc_dask.apps.worst_columns_search import EXHAUSTIVE, GREEDY, Tried, exhaustive_count, fitting_size, search, strongest
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_BAD_INPUT
from alc_dask.errors import OptionError

COLUMNS = ("a", "b", "c", "d", "e")


def scored_by(strength_of):
    """An ``evaluate`` that measures each subset as ``strength_of(columns)`` and records the rounds asked for."""
    rounds = []

    def evaluate(subsets, phase):
        rounds.append((phase, list(subsets)))
        return [Tried(columns, phase, "-".join(columns), Measured(strength_of(set(columns)), 0.0, 1.0, 10)) for columns in subsets]

    return evaluate, rounds


def test_every_subset_up_to_the_size_then_greedy_from_the_strongest_of_that_size_until_no_column_helps():
    evaluate, rounds = scored_by(lambda columns: len(columns & {"a", "c", "e"}) - 0.1 * len(columns - {"a", "c", "e"}))
    outcome = search(COLUMNS, 2, 100, evaluate)
    assert [phase for phase, _ in rounds] == [EXHAUSTIVE, GREEDY, GREEDY]
    assert len(rounds[0][1]) == exhaustive_count(5, 2) == 15 and rounds[0][1][:6] == [("a",), ("b",), ("c",), ("d",), ("e",), ("a", "b")]
    assert rounds[1][1] == [("a", "b", "c"), ("a", "c", "d"), ("a", "c", "e")]  # from (a, c), the strongest pair; columns in the table's order
    assert rounds[2][1] == [("a", "b", "c", "e"), ("a", "c", "d", "e")]
    assert outcome.chosen.columns == ("a", "c", "e")
    assert "made the attack stronger" in outcome.stopped and outcome.count(GREEDY) == 5


def test_the_budget_caps_every_phase_and_a_size_that_does_not_fit_is_a_seeded_sample():
    evaluate, rounds = scored_by(len)
    cut = search(COLUMNS, 2, 7, evaluate, seed=1)
    assert len(cut.tried) == 7 and cut.count(GREEDY) == 0 and "budget spent before" in cut.stopped
    pairs = [item.columns for item in cut.tried[5:]]
    assert len(set(pairs)) == 2 and all(len(pair) == 2 and list(pair) == sorted(pair) for pair in pairs)
    samples = {tuple(item.columns for item in search(COLUMNS, 2, 7, scored_by(len)[0], seed=seed).tried[5:]) for seed in range(6)}
    assert tuple(pairs) in samples and len(samples) > 1  # seeded: another seed, other pairs
    assert len(search(COLUMNS, 2, 14, scored_by(len)[0]).tried) == 14  # all but one pair, drawn without repeats
    evaluate, rounds = scored_by(len)
    greedy = search(COLUMNS, 1, 8, evaluate)
    assert [len(subsets) for _, subsets in rounds] == [5, 3] and greedy.stopped == "budget spent"
    evaluate, _ = scored_by(len)
    assert search(COLUMNS, 5, 100, evaluate).stopped == "every column is known"


def test_the_largest_size_that_fits_the_budget():
    assert [fitting_size(14, budget, 2) for budget in (5, 14, 104, 105)] == [1, 1, 1, 2]
    assert fitting_size(8, 50, 3) == 2 and fitting_size(3, 50, 3) == 3


def test_a_tie_goes_to_fewer_columns_and_an_unmeasured_subset_is_never_chosen():
    tried = [
        Tried(("a", "b"), EXHAUSTIVE, "ab", Measured(0.5, 0, 1, 9)),
        Tried(("c",), EXHAUSTIVE, "c", Measured(0.5, 0, 1, 9)),
        Tried(("d",), EXHAUSTIVE, "d", Measured.nothing()),
        Tried(("e",), EXHAUSTIVE, "e", None, "failed: boom"),
    ]
    assert strongest(tried).columns == ("c",)
    assert strongest(tried[2:]) is None


def test_the_halves_split_each_table_by_the_seed_alone():
    halves = Halves(3, {"original": 101, "control": 40})
    rows = np.arange(101)
    selection = halves.keep(SELECTION, "original", rows)
    assert selection.sum() == 51 and np.array_equal(halves.keep(HELD_OUT, "original", rows), ~selection)
    assert np.array_equal(Halves(3, {"original": 101}).keep(SELECTION, "original", rows[::-1]), selection[::-1])  # whatever rows are asked about
    assert not np.array_equal(Halves(4, {"original": 101}).keep(SELECTION, "original", rows), selection)
    assert halves.keep(SELECTION, "control", np.arange(40)).sum() == 20


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(0)
    table, control = (pd.DataFrame({name: rng.integers(0, 3, 60).astype(str) for name in ("a", "b", "c", "s")}) for _ in range(2))
    return read_inputs(table, table.drop(columns="c"), control)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"secret": "nope"}, "secret (--secret): 'nope' is not a column of the original table"),
        ({"secret": "c"}, "'c' is not a column of the release"),
        ({"secret": "s", "budget": 0}, "budget (--budget): must be a whole number of at least 1; got 0"),
        ({"secret": "s", "targets": np.int64(1)}, "targets (--targets): must be a whole number of at least 2; got 1"),
        ({"secret": "s", "max_size": 1.5}, "max_size (--max-size): must be a whole number of at least 1; got 1.5"),
        ({"secret": "s", "max_size": 3}, "max_size (--max-size): 3 is more than the 2 columns the attacker may know: ['a', 'b']"),
        ({"secret": "s", "columns": ["a", "s"]}, "'s' is the secret"),
        ({"secret": "s", "columns": ["c"]}, "'c' is not a column of both the original table and the release"),
        ({"secret": "s", "family": "membership"}, "membership infers no secret"),
        ({"family": "inference"}, "family inference infers a secret"),
        ({"secret": "s", "family": "nonsense"}, "'nonsense' is not a family the search runs"),
        ({"secret": "s", "attack": "nope"}, "attack (--attack): unknown attribute inference attack 'nope'; known: "),
        ({"attack": "best_row_match"}, "attack (--attack): attack 'best_row_match' is for attribute inference, not membership"),
        (
            {"secret": "s", "family": "inference", "attack": "best_row_match"},
            "'best_row_match' is not an attack of family inference; it has ['nearest', 'weighted_nearest', 'ml_on_release']",
        ),
    ],
)
def test_bad_requests_are_refused_naming_the_argument(inputs, arguments, message):
    settings = {"secret": None, "family": None, "columns": None, "max_size": 1, "budget": 5, "targets": 100, "seed": 0, "attack": None} | arguments
    with pytest.raises(OptionError) as error:
        request_of(inputs, **settings)
    assert message in str(error.value)


def test_families_comparing_with_non_members_need_a_control_table(inputs):
    without = read_inputs(inputs.original, inputs.release)
    with pytest.raises(OptionError, match="control table"):
        request_of(without, None, None, None, 1, 5, 100, 0)
    request = request_of(without, "s", None, None, 2, 5, 100, 0)
    assert (request.family, request.candidates) == ("alc", ("a", "b"))


def test_the_command_refuses_bad_input_in_one_line_before_any_cluster_starts(inputs, tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr("alc_dask.engine.connect", refuse)
    inputs.original.to_parquet(tmp_path / "original.parquet")
    inputs.release.to_parquet(tmp_path / "release.parquet")
    files = [str(tmp_path / "original.parquet"), str(tmp_path / "release.parquet")]
    for extra, message in (
        (["--secret", "nope"], "'nope' is not a column"),
        (["--secret", "s", "--budget", "0"], "budget"),
        (["--secret", "s", "--max-size", "9"], "9 is more"),
    ):
        result = CliRunner().invoke(main, ["worst-columns", *files, *extra])
        assert result.exit_code == EXIT_BAD_INPUT, result.output
        assert len(result.output.strip().splitlines()) == 1 and message in result.output


def test_the_command_defaults_are_the_python_apis():
    defaults = {option.name: option.default for option in command.params}
    assert (defaults["max_size"], defaults["budget"], defaults["targets"]) == (DEFAULT_MAX_SIZE, DEFAULT_BUDGET, DEFAULT_TARGETS)


def test_check_with_worst_columns_searches_each_battery_secret_and_membership(tmp_path, monkeypatch):
    from alc_dask.apps import worst_columns
    from alc_dask.apps.synthetic import make_demo_release

    tables = make_demo_release(300, 0)
    searched = []
    monkeypatch.setattr(worst_columns, "run_search", lambda request, inputs, folder, cluster: searched.append((request, folder.name)))
    worst_columns.battery_searches(read_inputs(tables["original"], tables["weak"], tables["control"]), tmp_path, seed=3)
    assert [(request.family, request.secret, folder) for request, folder in searched] == [
        ("alc", "age", "age"),
        ("alc", "region", "region"),
        ("alc", "occupation", "occupation"),
        ("alc", "hours_per_week", "hours_per_week"),
        ("membership", None, "membership-closest_distance"),
        ("membership", None, "membership-distance_ratio"),
        ("membership", None, "membership-density_ratio"),
    ]
    assert [request.attack for request, _ in searched] == [None] * 4 + ["closest_distance", "distance_ratio", "density_ratio"]
    assert {(request.max_size, request.budget, request.targets, request.seed) for request, _ in searched} == {
        (DEFAULT_MAX_SIZE, DEFAULT_BUDGET, DEFAULT_TARGETS, 3)
    }
    assert searched[0][0].candidates == tuple(c for c in tables["original"].columns if c != "age")


@pytest.mark.parametrize(("flag", "label", "code"), [([], "flagged", 0), (["--worst-columns"], "pass", 0), (["--worst-columns"], "flagged", 4)])
def test_check_exits_4_when_a_worst_columns_search_is_flagged(tmp_path, monkeypatch, flag, label, code):
    """The battery's run replaced by a passing verdict, the searches by one result of ``label``."""
    from types import SimpleNamespace

    from alc_dask.apps import check, worst_columns
    from alc_dask.verdict import Verdict

    table = pd.DataFrame({"a": ["x", "y"] * 10, "s": ["u", "v", "w", "z"] * 5})
    table.to_parquet(tmp_path / "original.parquet")
    passing = Verdict(verdict="pass", evaluations=[], thresholds={})
    monkeypatch.setattr(check, "run_check", lambda inputs, output, seed, **options: check.CheckRun(pd.DataFrame(), passing, output, 0.0, {}))
    result = SimpleNamespace(label=label, lines=lambda: [f"Worst known columns: {label}"])
    monkeypatch.setattr(worst_columns, "battery_searches", lambda inputs, folder, seed: [result])
    files = [str(tmp_path / "original.parquet")] * 2
    outcome = CliRunner().invoke(main, ["check", *files, "--output", str(tmp_path / "out"), *flag])
    assert outcome.exit_code == code, outcome.output
    assert ("Worst known columns: " in outcome.stdout) == bool(flag)
