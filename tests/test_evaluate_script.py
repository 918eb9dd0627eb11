"""``alc_dask.evaluate`` where people call it: at the top level of a plain script, with no
``if __name__ == "__main__":`` guard (worker processes imported the script again, which started a
cluster inside a worker, and the call hung), and with its progress bar where a person watches."""

import subprocess
import sys
import textwrap

import pytest

from alc_dask.apps import evaluate as evaluate_module

SCRIPT = textwrap.dedent(
    """
    import alc_dask
    from alc_dask.testing.truth import truth_releases

    truth = truth_releases(rows=300)
    result = alc_dask.evaluate(truth.members, truth.releases["copy"], truth.control, families=["singling_out"], output="out", workers=1)
    print("VERDICT", result.verdict.verdict)
    """
)


@pytest.mark.long  # a local cluster per case: about 10 s each
@pytest.mark.parametrize("how", [["unguarded.py"], ["-m", "unguarded"]], ids=["script", "module"])
def test_evaluate_at_the_top_level_of_a_script_returns_its_verdict(tmp_path, how):
    (tmp_path / "unguarded.py").write_text(SCRIPT)
    done = subprocess.run([sys.executable, *how], cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "VERDICT flagged"
    assert "bootstrapping phase" not in done.stderr


def test_the_progress_bar_shows_where_a_person_watches(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert not evaluate_module.watched()
    monkeypatch.setitem(sys.modules, "ipykernel", sys)  # a Jupyter kernel imported
    assert evaluate_module.watched()
    monkeypatch.delitem(sys.modules, "ipykernel")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert evaluate_module.watched()
