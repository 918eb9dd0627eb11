"""The worst-columns search on releases whose leak is planted: it finds the planted columns, its
held-out measure agrees with a direct run of them, a release that leaks nothing is not flagged,
and the same seed gives the same result."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import alc_dask
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_RELEASE_FLAGGED

GRID = 20
"""Values of each of ``a`` and ``b``: every pair once, so the pair names one member and either alone twenty."""


def planted(seed: int) -> dict[str, pd.DataFrame]:
    """Members whose secret ``s`` the release gives away to whoever knows their ``a`` and ``b``: the
    release keeps the members' ``a``, ``b``, ``s`` and ``x`` (a number of their own) and replaces
    ``c`` by noise. In the population ``s`` depends on nothing, so no baseline can guess it."""
    rng = np.random.default_rng(seed)
    n = GRID * GRID

    def people(rng) -> pd.DataFrame:
        cells = rng.permutation(n)
        return pd.DataFrame(
            {
                "a": (cells // GRID).astype(str),
                "b": (cells % GRID).astype(str),
                "c": rng.integers(0, GRID, n).astype(str),
                "x": rng.uniform(0, 1000, n).round(3),
                "s": rng.choice(list("wxyz"), n),
            }
        )

    members, control = people(rng), people(rng)
    release = members.assign(c=rng.integers(0, GRID, n).astype(str))
    return {"members": members, "release": release, "control": control}


@pytest.fixture(scope="module")
def tables():
    return planted(0)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as running,
    ):
        yield running


def test_the_search_finds_the_planted_pair_and_its_held_out_alc_agrees_with_a_direct_run(tables, client, tmp_path):
    from alc_dask.data import Release
    from alc_dask.families.alc.family import AlcFamily
    from alc_dask.families.alc.loop import run_attack

    found = alc_dask.worst_columns(
        tables["members"], tables["release"], secret="s", columns=["a", "b", "c"], max_size=2, budget=7, targets=400, output=tmp_path, client=client
    )
    assert found.chosen.columns == ("a", "b")
    assert found.tried == 7 and found.subsets["phase"].tolist() == ["exhaustive"] * 6 + ["greedy"]
    assert found.label == "flagged"
    direct = run_attack(Release.load(tables["members"], [tables["release"]]), "s", ["a", "b"])
    interval = AlcFamily.headline_interval(direct.measures())
    assert interval.low <= found.held_out.value <= interval.high
    assert found.held_out.targets + found.chosen.selection.targets == 400
    written = json.loads((tmp_path / "worst_columns.json").read_text())
    assert written["chosen"]["columns"] == ["a", "b"] and written["tried"] == 7 and written["chosen"]["label"] == "flagged"
    assert pd.read_parquet(tmp_path / "subsets.parquet")["chosen"].sum() == 1


def test_anonymeters_inference_finds_the_planted_pair_too(tables, client, tmp_path):
    found = alc_dask.worst_columns(
        tables["members"],
        tables["release"],
        secret="s",
        control=tables["control"],
        family="inference",
        columns=["a", "b", "c"],
        max_size=2,
        budget=6,
        targets=400,
        output=tmp_path,
        client=client,
    )
    assert found.chosen.columns == ("a", "b") and found.label == "flagged"
    assert found.held_out.low > 0.9


@pytest.mark.long  # 22 s on 2 cores: out of the default run, in make test's second step
def test_on_a_bootstrap_of_other_people_the_strongest_subset_is_not_above_the_baseline(client, tmp_path):
    from alc_dask.testing.truth import truth_releases

    truth = truth_releases(rows=600, seed=2)
    found = alc_dask.worst_columns(
        truth.members,
        truth.releases["bootstrap"],
        secret="education",
        columns=["age", "sex", "region", "occupation"],
        max_size=1,
        budget=5,
        output=tmp_path,
        client=client,
    )
    assert found.tried == 5
    assert found.held_out.low <= 0 and found.label != "flagged"


def membership_search(tables, client, folder, seed):
    return alc_dask.worst_columns(
        tables["members"],
        tables["release"],
        control=tables["control"],
        columns=["c", "x"],
        max_size=1,
        budget=3,
        targets=300,
        seed=seed,
        output=folder,
        client=client,
    )


def test_membership_finds_the_copied_number_and_the_same_seed_gives_the_same_result(tables, client, tmp_path):
    first = membership_search(tables, client, tmp_path / "first", 5)
    assert first.chosen.columns == ("x",) and first.label == "flagged"
    assert first.subsets["columns"].map(tuple).tolist() == [("c",), ("x",), ("c", "x")]
    again = membership_search(tables, client, tmp_path / "again", 5)
    other = membership_search(tables, client, tmp_path / "other", 6)

    def figures(result):
        return {key: value for key, value in result.to_dict().items() if key != "seconds"}

    assert figures(again) == figures(first)
    assert other.chosen.selection != first.chosen.selection  # another seed, other halves


def test_the_command_searches_the_attack_named_prints_the_subsets_and_exits_4_when_the_held_out_measure_is_flagged(tables, client, tmp_path):
    files = []
    for name in ("members", "release", "control"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
        files.append(str(tmp_path / f"{name}.parquet"))
    output = tmp_path / "out"
    arguments = [
        "worst-columns",
        files[0],
        files[1],
        "--control",
        files[2],
        "--attack",
        "density_ratio",
        "--column",
        "c",
        "--column",
        "x",
        "--max-size",
        "1",
        "--budget",
        "2",
    ]
    result = CliRunner().invoke(main, [*arguments, "--targets", "300", "--output", str(output), "--scheduler", client.scheduler.address])
    assert result.exit_code == EXIT_RELEASE_FLAGGED, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "Worst known columns for membership (membership, attack density_ratio): 2 subsets tried (2 exhaustive, up to 1 column; 0 greedy)"
    )
    assert lines[2].split()[:2] == ["x", "exhaustive"] and lines[2].endswith("<- chosen")
    assert lines[4].startswith("Chosen: x. Held-out half: membership_alc ") and "FLAGGED" in lines[4]
    written = json.loads((output / "worst_columns.json").read_text())
    assert written["chosen"]["columns"] == ["x"] and written["attack"] == "density_ratio"
    assert json.loads(pd.read_parquet(output / "runs" / "scores").loc[0, "params"])["attack"] == "density_ratio"
