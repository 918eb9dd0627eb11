"""``check`` and ``evaluate`` on a person's own data: CSV read as they expect (numbers as numbers, the
separator their file holds), pandas categories and integer column names, their choice of secrets,
known columns and kinds, a running cluster, and nothing of their data left in the output."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

import alc_dask
from alc_dask.apps import check
from alc_dask.apps.battery import battery_entries
from alc_dask.apps.staging import staging_folder
from alc_dask.apps.synthetic import make_demo_release, make_population
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_BAD_INPUT
from alc_dask.errors import OptionError

ROWS = 600


@pytest.fixture(scope="module")
def tables():
    return make_demo_release(ROWS, 0)


def entries_of(inputs, **choice):
    return battery_entries(inputs.typed["original"], inputs.typed["release"], inputs.control is not None, **choice)


def test_csv_and_parquet_of_the_same_data_get_the_same_battery(tables, tmp_path):
    """CSV cells were read as text, so no column was continuous: 9 evaluations and secrets
    [Amount, label] from CSV against 13 and [Amount, V22, V27, label] from Parquet."""
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
        tables[name].to_csv(tmp_path / f"{name}.csv", index=False)
        tables[name].to_csv(tmp_path / f"{name}-semicolon.csv", index=False, sep=";")
    parquet = check.read_inputs(tmp_path / "original.parquet", tmp_path / "weak.parquet")
    csv = check.read_inputs(tmp_path / "original.csv", tmp_path / "weak.csv")
    semicolon = check.read_inputs(tmp_path / "original-semicolon.csv", tmp_path / "weak-semicolon.csv")
    assert list(semicolon.original.columns) == list(tables["original"].columns)
    expected = entries_of(parquet)
    assert any(entry.get("tolerance") for entry in expected)  # a continuous secret is in it
    assert entries_of(csv) == expected and entries_of(semicolon) == expected
    assert semicolon.paths["original"].endswith("original-semicolon.csv")  # the engine reads it, split alike


def test_a_separator_given_is_used_and_the_table_is_handed_to_the_engine_as_read(tables, tmp_path):
    tables["original"].to_csv(tmp_path / "original.csv", index=False, sep="|")
    tables["weak"].to_csv(tmp_path / "weak.csv", index=False, sep="|")
    inputs = check.read_inputs(tmp_path / "original.csv", tmp_path / "weak.csv", sep="|")
    assert list(inputs.original.columns) == list(tables["original"].columns)
    assert inputs.paths == {"original": None, "release": None}  # written for the engine, not re-read with its own split


def test_pandas_categories_and_integer_column_names_are_read():
    """``category`` columns were refused as "neither numbers nor text"; integer names failed with job-spec jargon."""
    people = make_population(300, 3)
    people["region"] = people["region"].astype("category")
    people["age"] = pd.Categorical(people["age"])
    numbered = people.set_axis(range(people.shape[1]), axis=1)
    inputs = check.read_inputs(numbered, numbered.sample(frac=1.0, random_state=0))
    assert list(inputs.original.columns) == [str(i) for i in range(people.shape[1])]
    assert not any(isinstance(dtype, pd.CategoricalDtype) for dtype in inputs.original.dtypes)
    assert pd.api.types.is_numeric_dtype(inputs.typed["original"]["0"])  # age's values, still numbers


def test_named_secrets_known_columns_and_kinds_replace_the_battery_choice(tables):
    inputs = check.read_inputs(tables["original"], tables["weak"], kinds={"age": "categorical", "education": "categorical"})
    entries = entries_of(inputs, secrets=["age"], known=["sex", "region"])
    alc = [entry for entry in entries if entry.get("secret") is not None and "known" in entry]
    assert {entry["secret"] for entry in alc} == {"age"}
    assert ["sex", "region"] in [entry["known"] for entry in alc]
    assert not any(entry.get("tolerance") for entry in alc)  # declared categorical: guessed exactly, not within 5%
    assert inputs.typed["original"]["age"].map(type).eq(str).all()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--secret", "salary"], "secrets (--secret): 'salary' is not a column of the original table"),
        (["--known", "age,shoe_size"], "known (--known): 'shoe_size' is not a column of the release"),
        (["--secret", "age", "--known", "age"], "known (--known): 'age' is also a secret"),
        (["--types", "age=number"], "types: age='number': a column's kind is one of ['categorical', 'continuous']"),
        (["--types", "age"], "types (--types): 'age' is not COLUMN=KIND"),
        (["--types", "sex=continuous"], "column 'sex' is declared continuous but holds text"),
    ],
)
def test_bad_choices_are_refused_before_any_cluster_starts(tables, tmp_path, monkeypatch, options, message):
    monkeypatch.setattr("alc_dask.engine.connect", lambda *a, **k: pytest.fail("a cluster was started"))
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "original.parquet"), str(tmp_path / "weak.parquet"), *options])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert message in result.output


def test_a_release_lacking_columns_is_evaluated_on_those_it_has_and_says_which(tables):
    inputs = check.read_inputs(tables["original"], tables["weak"].drop(columns=["income", "married"]))
    entries = entries_of(inputs)
    assert entries and not any({"income", "married"} & set(entry.get("known", [])) for entry in entries)
    notes = check_command_notes(inputs)
    assert "the release lacks 2 column(s) of the original ('income', 'married'): evaluated on the 7 it has" in notes
    assert any(note.startswith("not run: ") and "give --control" in note for note in notes)


def test_the_share_of_copied_rows_is_said(tables):
    others = make_population(ROWS, 7)
    assert not any("rows of the original" in note for note in check_command_notes(check.read_inputs(tables["original"], others)))
    copied = pd.concat([tables["original"].iloc[:150], others.iloc[150:]], ignore_index=True)
    assert "25% of the release's rows are rows of the original, value for value" in check_command_notes(check.read_inputs(tables["original"], copied))


def check_command_notes(inputs):
    from alc_dask.apps.check_command import input_notes

    return input_notes(inputs)


def test_evaluate_refuses_a_secret_it_does_not_have(tables):
    with pytest.raises(OptionError, match="secrets"):
        alc_dask.evaluate(tables["original"], tables["weak"], secrets=["salary"], families=["alc"])


@pytest.mark.long  # a scheduler and a worker started on 127.0.0.1: about 20 s
def test_evaluate_on_a_running_cluster_with_chosen_columns_leaves_no_table_on_disk_but_where_its_workers_read(tables, tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        output = tmp_path / "out"
        result = alc_dask.evaluate(
            tables["original"],
            tables["weak"],
            families=["alc"],
            secrets=["occupation"],
            known=["age", "sex"],
            types={"age": "categorical"},
            output=output,
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    params = [json.loads(p) for p in result.scores["params"]]
    assert {p["secret"] for p in params} == {"occupation"} and ["age", "sex"] in [p["known"] for p in params]
    assert sorted(p.name for p in (output / "data").iterdir()) == ["original.parquet", "release.parquet"]  # the workers read them there
    assert result.verdict.fidelity.columns_kept > 0.8 and "fidelity" in json.loads((output / "verdict.json").read_text())
    local = tmp_path / "local"
    alc_dask.evaluate(tables["original"], tables["weak"], families=["alc"], secrets=["married"], known=["sex"], output=local, workers=1, progress=False)
    written = [p.relative_to(local) for p in local.rglob("*.parquet") if p.name in ("original.parquet", "release.parquet")]
    assert written == [] and not (local / "data").exists()
    assert not staging_folder(local).exists()


def test_a_folder_of_parquet_parts_is_a_table(tables, tmp_path):
    """``check`` refused a folder of parts, which ``run`` accepts."""
    parts = tmp_path / "release"
    parts.mkdir()
    for i, chunk in enumerate((tables["weak"].iloc[:300], tables["weak"].iloc[300:])):
        chunk.to_parquet(parts / f"part-{i}.parquet", index=False)
    inputs = check.read_inputs(tables["original"], parts)
    assert len(inputs.release) == ROWS and inputs.paths["release"] == str(parts)
    assert check.release_label(inputs) == "release"


def test_a_sidecar_of_kinds_is_shared_by_check_evaluate_and_jobs(tables, tmp_path):
    """One YAML or JSON file of column kinds, read by `check --types FILE`, `evaluate(types=FILE)`
    and a job's `release.columns: FILE` alike."""
    from alc_dask.apps.check_command import parsed_types
    from alc_dask.apps.evaluate import _kinds
    from alc_dask.jobs import load_job

    (tmp_path / "kinds.yaml").write_text("age: categorical\nincome: continuous\n")
    (tmp_path / "kinds.json").write_text('{"age": "categorical"}')
    assert parsed_types((str(tmp_path / "kinds.yaml"), "education=categorical")) == {"age": "categorical", "income": "continuous", "education": "categorical"}
    assert _kinds(tmp_path / "kinds.json") == {"age": "categorical"}
    for name in ("original", "weak"):
        tables[name].to_parquet(tmp_path / f"{name}.parquet", index=False)
    (tmp_path / "job.yaml").write_text(
        "name: sidecar\nrelease: {original: original.parquet, anonymized: weak.parquet, columns: kinds.yaml}\nscenarios: [{secret: occupation, known: [age, sex]}]\n"
    )
    job = load_job(tmp_path / "job.yaml")
    assert job.release.column_kinds == {"age": "categorical", "income": "continuous"}
    (tmp_path / "bad.yaml").write_text("age: number\n")
    with pytest.raises(OptionError, match=r"types \(--types\): .*bad.yaml: column 'age': 'number' is not a kind; expected categorical or continuous"):
        parsed_types((str(tmp_path / "bad.yaml"),))
    with pytest.raises(OptionError, match=r"types: file '.*missing.json' not found"):
        _kinds(str(tmp_path / "missing.json"))
    (tmp_path / "job.yaml").write_text(
        "name: sidecar\nrelease: {original: original.parquet, anonymized: weak.parquet, columns: bad.yaml}\nscenarios: [{secret: occupation, known: [age]}]\n"
    )
    from alc_dask.errors import JobSpecError
    from alc_dask.jobs.load import check_files

    with pytest.raises(JobSpecError, match=r"release.columns: .*bad.yaml: column 'age'"):
        check_files(load_job(tmp_path / "job.yaml"))
