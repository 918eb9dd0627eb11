"""The selection rules of benchmarks/bench_selection_candidates.py (``--strategies``): which
candidates each rule fits and what its choice loses, the figures behind the bound on the paper's
experiment in benchmarks/RESULTS-performance.md."""

import io
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_selection_candidates import chosen, print_strategies, strategy_fits  # noqa: E402

NAN = float("nan")


def prcs(**given) -> dict[str, float]:
    every = dict.fromkeys(("majority", "one_to_one", "logistic_regression", "hist_gradient_boosting", "random_forest", "extra_trees"), 0.0)
    return {**every, **given}


def test_the_choice_is_the_best_fitted_candidate_and_the_first_of_equals():
    scores = prcs(majority=0.2, one_to_one=NAN, logistic_regression=0.6, hist_gradient_boosting=0.6)
    assert chosen(scores, scores) == "logistic_regression"
    assert chosen(scores, {"majority", "one_to_one"}) == "majority"


def test_each_rule_fits_what_it_says():
    attack = prcs(logistic_regression=0.5, hist_gradient_boosting=0.7, random_forest=0.6)
    first = prcs(logistic_regression=0.8, hist_gradient_boosting=0.79, extra_trees=0.9)
    fits = strategy_fits(attack, first)
    assert fits["every candidate (the reference's)"] == set(attack)
    assert fits["no forests"] == {"majority", "one_to_one", "logistic_regression", "hist_gradient_boosting"}
    assert fits["winner only (a bound for any rule per attack)"] == {"hist_gradient_boosting"}
    assert fits["the secret's first attack's winner, and the trivial models"] == {"extra_trees", "majority", "one_to_one"}
    close = "logistic regression, boosting where within 0.02 on the first attack, no forests"
    assert fits[close] == {"majority", "one_to_one", "logistic_regression", "hist_gradient_boosting"}
    assert "hist_gradient_boosting" not in strategy_fits(attack, prcs(logistic_regression=0.8, hist_gradient_boosting=0.7))[close]


def test_a_rule_that_misses_the_winner_reports_the_prc_it_loses():
    attack = prcs(logistic_regression=0.5, hist_gradient_boosting=0.7)
    first = prcs(logistic_regression=0.8, hist_gradient_boosting=0.6)
    seconds = dict.fromkeys(attack, 1.0)
    row = {"prc": attack, "seconds": seconds, "fits": strategy_fits(attack, first)}
    out = io.StringIO()
    with redirect_stdout(out):
        print_strategies([row])
    lines = {line.split("  ")[0]: line.split() for line in out.getvalue().splitlines()[2:]}
    first_winner = lines["the secret's first attack's winner, and the trivial models"]
    assert np.isclose(float(first_winner[-1]), 0.2)  # the largest loss: boosting's 0.7 against logistic regression's 0.5
    assert np.isclose(float(first_winner[-7]), 0.5)  # three of the six candidates' seconds
    assert float(lines["winner only (a bound for any rule per attack)"][-7]) == round(1 / 6, 4)
