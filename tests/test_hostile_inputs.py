"""Hostile and hurried inputs to ``check``'s new surfaces (``--secret``, ``--known``, ``--types``,
``--sep``, ``--scheduler``, ``--workers``, ``--out``) and to the tables themselves, each refused
before any cluster starts, in one line naming what the user wrote (exit 2). This file is the list
of the probe's inputs and their outcomes: every case asserts its exit code and its message."""

import pytest
from click.testing import CliRunner

from alc_dask.apps.synthetic import make_demo_release
from alc_dask.cli import main
from alc_dask.cli_exit_codes import EXIT_BAD_INPUT


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Tables good and bad, written once: the demo's original, release and control (300 people) as
    Parquet and CSV, and broken variants of them."""
    root = tmp_path_factory.mktemp("hostile")
    tables = make_demo_release(300, 0)
    original, release, control = tables["original"], tables["weak"], tables["control"]
    original.to_parquet(root / "original.parquet", index=False)
    release.to_parquet(root / "release.parquet", index=False)
    control.to_parquet(root / "control.parquet", index=False)
    original.to_csv(root / "original.csv", index=False)
    release.to_csv(root / "release.csv", index=False)
    original.iloc[:5].to_parquet(root / "five.parquet", index=False)
    original.iloc[:0].to_parquet(root / "empty.parquet", index=False)
    release.assign(extra=1).to_parquet(root / "extra.parquet", index=False)
    release[["age", "sex"]].rename(columns={"age": "AGE", "sex": "SEX"}).to_parquet(root / "other-columns.parquet", index=False)
    control.drop(columns=["age"]).to_parquet(root / "control-lacking.parquet", index=False)
    original.to_parquet(root / "control-is-original.parquet", index=False)
    (root / "garbage.parquet").write_bytes(b"not a parquet file at all")
    (root / "notes.txt").write_text("age,sex\n1,2\n")
    (root / "duplicate-header.csv").write_text("age,age\n1,2\n" * 1)
    (root / "header-only.csv").write_text(",".join(original.columns) + "\n")
    (root / "no-tables").mkdir()
    (root / "no-tables" / "README").write_text("nothing here")
    release.assign(age=release["age"].astype(str).where(release.index % 7 != 0, "unknown")).to_parquet(root / "mixed-age.parquet", index=False)
    return root


def p(name: str) -> str:
    return f"{{root}}/{name}"


BASE = [p("original.parquet"), p("release.parquet")]
CASES = [
    # tables
    ([p("missing.parquet"), p("release.parquet")], "no such file or folder (original table)"),
    ([p("original.parquet"), p("missing.csv")], "no such file or folder (release table)"),
    ([p("five.parquet"), p("release.parquet")], "5 rows are too few for any evaluation"),
    ([p("empty.parquet"), p("release.parquet")], "the table is empty"),
    ([p("original.parquet"), p("extra.parquet")], "column 'extra' is not in the original table"),
    ([p("original.parquet"), p("other-columns.parquet")], "column 'AGE' is not in the original table"),
    ([p("garbage.parquet"), p("release.parquet")], "cannot read parquet file"),
    ([p("notes.txt"), p("release.parquet")], "unknown table format; expected a .csv or .parquet file"),
    ([p("duplicate-header.csv"), p("release.parquet")], "duplicate column names ['age']"),
    ([p("header-only.csv"), p("release.parquet")], "the table is empty"),
    ([p("no-tables"), p("release.parquet")], "holds no .parquet or .csv file"),
    ([p("original.parquet"), p("mixed-age.parquet")], "column 'age' cannot be typed consistently"),
    ([*BASE, "--control", p("control-lacking.parquet")], "the control table lacks column 'age' of the original"),
    ([*BASE, "--control", p("control-is-original.parquet")], "rows are rows of the original"),
    ([*BASE, "--control", p("missing.parquet")], "no such file or folder (control table)"),
    ([*BASE, "--control", p("five.parquet")], "5 rows are too few for any evaluation: the control table needs at least 10"),
    # --secret
    ([*BASE, "--secret", "salary"], "secrets (--secret): 'salary' is not a column of the original table"),
    ([*BASE, "--secret", "Age"], "secrets (--secret): 'Age' is not a column of the original table"),
    ([*BASE, "--secret", "age,salary"], "secrets (--secret): 'salary' is not a column of the original table"),
    ([*BASE, "--secret", "age", "--secret", "age,nope"], "secrets (--secret): 'nope' is not a column"),
    ([*BASE, "--secret", " "], None),  # blank: no secret named, the battery's own choice (runs)
    ([*BASE, "--secret", "income", "--known", "income"], "known (--known): 'income' is also a secret"),
    ([*BASE, "--secret", "age,sex", "--known", "sex,region"], "known (--known): 'sex' is also a secret"),
    # --known
    ([*BASE, "--known", "zip"], "known (--known): 'zip' is not a column of the release"),
    ([*BASE, "--known", "age,,zip"], "known (--known): 'zip' is not a column of the release"),
    ([*BASE, "--known", "age;sex"], "known (--known): 'age;sex' is not a column of the release"),
    ([p("original.parquet"), p("other-columns.parquet"), "--known", "AGE"], "column 'AGE' is not in the original table"),
    # --types
    ([*BASE, "--types", "age"], "types (--types): 'age' is not COLUMN=KIND"),
    ([*BASE, "--types", "=continuous"], "types (--types): '=continuous' is not COLUMN=KIND"),
    ([*BASE, "--types", "age=Continuous"], "types: age='Continuous': a column's kind is one of ['categorical', 'continuous']"),
    ([*BASE, "--types", "age=numeric"], "types: age='numeric': a column's kind is one of"),
    ([*BASE, "--types", "age=true"], "types: age='true': a column's kind is one of"),
    ([*BASE, "--types", "zip=categorical"], "types: 'zip' is not a column of the original table"),
    ([*BASE, "--types", "sex=continuous"], "column 'sex' is declared continuous but holds text"),
    ([*BASE, "--types", "region=continuous,age=categorical"], "column 'region' is declared continuous but holds text"),
    ([*BASE, "--types", "age=categorical,age=continuous,sex=continuous"], "column 'sex' is declared continuous"),
    ([p("original.parquet"), p("mixed-age.parquet"), "--types", "age=continuous"], "column 'age' cannot be typed consistently"),
    # --sep
    ([p("original.csv"), p("release.csv"), "--sep", ";"], "is read as one column 'age,sex,region"),
    ([p("original.csv"), p("release.csv"), "--sep", "\t"], "is read as one column 'age,sex,region"),
    ([p("original.csv"), p("release.csv"), "--sep", ","], None),
    # --scheduler and --workers
    ([*BASE, "--scheduler", "not an address"], "scheduler 'not an address': not a scheduler address nor an existing scheduler file"),
    ([*BASE, "--scheduler", "tcp://"], "not a scheduler address"),
    ([*BASE, "--scheduler", "http://127.0.0.1:8787"], "not a scheduler address"),
    ([*BASE, "--scheduler", p("no-tables")], "not a scheduler address nor an existing scheduler file"),
    ([*BASE, "--scheduler", p("notes.txt")], "notes.txt"),
    ([*BASE, "--workers", "0"], "Invalid value for '--workers': 0 is not in the range x>=1"),
    ([*BASE, "--workers", "-3"], "Invalid value for '--workers'"),
    ([*BASE, "--workers", "two"], "Invalid value for '--workers': 'two' is not a valid integer range"),
    ([*BASE, "--workers", "1.5"], "Invalid value for '--workers'"),
    # other options
    ([*BASE, "--seed", "-1"], "Invalid value for '--seed'"),
    ([*BASE, "--seed", "true"], "Invalid value for '--seed'"),
    ([*BASE, "--seed", "1e3"], "Invalid value for '--seed'"),
    ([*BASE, "--control"], "Option '--control' requires an argument"),
    ([*BASE, "--secret"], "Option '--secret' requires an argument"),
    ([*BASE, "--types"], "Option '--types' requires an argument"),
    ([*BASE, "--bogus"], "No such option '--bogus'"),
    ([p("original.parquet")], "Missing argument 'RELEASE'"),
    ([], "Missing argument 'ORIGINAL'"),
    ([*BASE, p("control.parquet")], "Got unexpected extra argument"),
    ([*BASE, "--out"], "Option '--out' requires an argument"),
    ([p("release.parquet"), p("original.parquet"), "--known", "nope"], "known (--known): 'nope' is not a column of the release"),
]


@pytest.mark.parametrize(("arguments", "message"), CASES, ids=[f"{i:02d}" for i in range(len(CASES))])
def test_a_hostile_input_is_refused_before_any_cluster_in_one_line(folder, monkeypatch, arguments, message):
    ran = []

    def accepted(*args, **kwargs):
        ran.append(kwargs)
        raise SystemExit(0)

    monkeypatch.setattr("alc_dask.apps.check.run_check", accepted)
    result = CliRunner().invoke(main, ["check", *(a.replace("{root}", str(folder)) for a in arguments)])
    if message is None:
        assert ran, result.output
        return
    assert not ran, f"accepted: {arguments}"
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    lines = [line for line in result.output.strip().splitlines() if line.strip()]
    assert message in result.output, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert len(lines) <= 3, result.output  # one line, or click's usage line, hint and error
