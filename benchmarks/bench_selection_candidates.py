"""What each candidate of the ML baseline's model selection costs, and which wins, on a seeded
sample of the paper's ML scenarios; and, given ``--boosting NAME=PARAMS`` variants, gradient
boosting's seconds and test-split PRC under each against its settings as shipped.

Each sampled scenario's selection is replayed in this process: its train and test split, every
candidate fitted on one thread as selection fits it, its PRC on the test split as selection scores
it. Prints per candidate the seconds (sum, mean, max) and how many selections it wins; per variant,
boosting's seconds, mean iterations and the quantiles of the PRC change.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_selection_candidates.py jobs/paper/*-strong.yaml --per-job 40
    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_selection_candidates.py jobs/paper/*-strong.yaml --per-job 10 \\
        --boosting 'bins63={"max_bins": 63}' 'leaves15={"max_leaf_nodes": 15}'

With ``--strategies``, each sampled selection is also replayed on the known columns of its
secret's first attack in the job (every candidate fitted there too), and cheaper selection rules
are scored against the reference's (every candidate, every attack): per rule, its share of the
candidates' seconds, how often its choice is worse, and the test-split PRC the attack loses by it.
"Winner only" fits nothing but the model selection ends up choosing: no rule that selects per
attack can cost less, so it bounds what any such rule can save.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_selection_candidates.py jobs/paper/*-strong.yaml --per-job 30 --strategies
"""

import argparse
import json
import time
from functools import partial

import numpy as np
import pandas as pd

from alc_dask.baseline.budget import logistic_rows
from alc_dask.baseline.features import FeatureLayout
from alc_dask.baseline.selection import BaselineSettings, _split, fit_model, predict_with_confidence
from alc_dask.baseline.zoo import build_model
from alc_dask.engine.runner import prepare_release
from alc_dask.jobs import expand, load_job
from alc_dask.measure import MeasureSettings

BOOSTING = "hist_gradient_boosting"


def sampled_selections(path: str, per_job: int):
    """(job name, layout, train and test split, seed, and a call that gives the layout and split of
    the known columns of the secret's first attack in the job) of a seeded sample of the job's ML
    scenarios with a categorical secret (a continuous one is selected among regressors)."""
    spec = load_job(path)
    release = prepare_release(spec)
    scenarios = [s for s in expand(spec, release, path) if not s.skipped and s.family.params.baseline == "ml"]
    first_known = {}
    for scenario in scenarios:
        first_known.setdefault(scenario.family.params.secret, scenario.family.params.known)

    def layout_and_split(known, secret, seed):
        layout = FeatureLayout.of(release, known)
        return layout, _split(layout.matrix(release.original), release.secret_column(secret), BaselineSettings(), seed)

    for i in sorted(np.random.default_rng(0).choice(len(scenarios), min(per_job, len(scenarios)), replace=False)):
        params, seed = scenarios[i].family.params, scenarios[i].seed
        if params.tolerance:
            continue
        yield spec.name, *layout_and_split(params.known, params.secret, seed), seed, partial(layout_and_split, first_known[params.secret], params.secret, seed)


def scored(model, X_test, y_test, measure: MeasureSettings) -> float:
    """The candidate's PRC on the test split, as selection scores it."""
    codes, confidence = predict_with_confidence(model, X_test)
    result = measure.best_prc(codes == y_test, confidence, 0.1)
    return (result if result.found else measure.best_prc(codes == y_test, confidence, 0.25)).prc


def timed_fit(name: str, layout, split, seed: int, settings: BaselineSettings, params: dict | None = None):
    """The fitted candidate and its seconds, or (None, seconds) where it cannot be fitted."""
    X_train, _, y_train, _ = split
    rows = min(len(y_train), logistic_rows(len(np.unique(y_train)))) if name == "logistic_regression" else len(y_train)
    model = build_model(name, layout, settings.selection_trees, seed, settings)
    if params:
        model.set_params(**params)
    started = time.perf_counter()
    try:
        fit_model(model, X_train[:rows], y_train[:rows])
    except ValueError:
        return None, time.perf_counter() - started
    return model, time.perf_counter() - started


FORESTS = ("random_forest", "extra_trees")
TRIVIAL = ("majority", "one_to_one")


def chosen(prc: dict[str, float], among) -> str:
    """Selection's choice among ``among``: the best PRC, the first of equals in candidate order."""
    fitted = {name: value for name, value in prc.items() if name in among and not np.isnan(value)}
    return max(fitted, key=fitted.get)


def strategy_fits(prc: dict[str, float], first_prc: dict[str, float]) -> dict[str, set[str]]:
    """The candidates each selection rule fits on an attack, given every candidate's PRC on the
    attack's test split (``prc``) and on its secret's first attack (``first_prc``)."""
    first_winner = chosen(first_prc, first_prc)
    first_best = max(value for name, value in first_prc.items() if name not in FORESTS and not np.isnan(value))
    boosting_close = first_prc[BOOSTING] >= first_best - 0.02
    return {
        "every candidate (the reference's)": set(prc),
        "no forests": set(prc) - set(FORESTS),
        "winner only (a bound for any rule per attack)": {chosen(prc, prc)},
        "the secret's first attack's winner, and the trivial models": {first_winner, *TRIVIAL},
        "logistic regression, boosting where within 0.02 on the first attack, no forests": {
            "logistic_regression",
            *TRIVIAL,
            *((BOOSTING,) if boosting_close else ()),
        },
    }


def print_strategies(rows: list[dict]) -> None:
    """Per selection rule: its share of the candidates' seconds, how often its choice is worse than
    the reference's rule, and the quantiles of the test-split PRC the attack loses by it."""
    table = {}
    for rule in rows[0]["fits"]:
        seconds = sum(sum(row["seconds"][name] for name in row["fits"][rule]) for row in rows)
        losses = np.array([row["prc"][chosen(row["prc"], row["prc"])] - row["prc"][chosen(row["prc"], row["fits"][rule])] for row in rows])
        quantiles = np.quantile(losses, [0.5, 0.9, 0.95, 0.99, 1.0])
        table[rule] = {
            "seconds share": seconds / sum(sum(row["seconds"].values()) for row in rows),
            "choice worse": float(np.mean(losses > 0)),
            **{f"PRC lost q{q}": value for q, value in zip((50, 90, 95, 99, 100), quantiles)},
        }
    print(f"\nselection rules on {len(rows)} selections (seconds: the candidates each rule fits, as timed above)")
    print(pd.DataFrame(table).T.round(4).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", nargs="+")
    parser.add_argument("--per-job", type=int, default=40)
    parser.add_argument(
        "--boosting", nargs="*", default=[], metavar="NAME=JSON", help="a variant: a name and boosting parameters, e.g. bins63='{\"max_bins\": 63}'"
    )
    parser.add_argument("--strategies", action="store_true", help="score cheaper selection rules against the reference's")
    args = parser.parse_args()
    variants = {name: json.loads(params) for name, params in (variant.split("=", 1) for variant in args.boosting)}
    settings, measure = BaselineSettings(), MeasureSettings()
    candidates, boosting, strategies = [], [], []

    def fitted_scores(layout, split, seed):
        scores, times = {}, {}
        for name in settings.candidates:
            model, times[name] = timed_fit(name, layout, split, seed, settings)
            scores[name] = float("nan") if model is None else scored(model, split[1], split[3], measure)
        return scores, times

    for path in args.jobs:
        for job, layout, split, seed, first in sampled_selections(path, args.per_job):
            scores, times = fitted_scores(layout, split, seed)
            candidates += [{"job": job, "seed": seed, "candidate": name, "seconds": times[name], "prc": scores[name]} for name in scores]
            if args.strategies:
                first_scores = fitted_scores(*first(), seed)[0]
                strategies.append({"prc": scores, "seconds": times, "fits": strategy_fits(scores, first_scores)})
            for variant, params in variants.items():
                model, seconds = timed_fit(BOOSTING, layout, split, seed, settings, params)
                boosting.append(
                    {
                        "variant": variant,
                        "seconds": seconds,
                        "iterations": model.n_iter_,
                        "change": scored(model, split[1], split[3], measure) - scores[BOOSTING],
                    }
                )
        print(f"{path}: done", flush=True)
    frame = pd.DataFrame(candidates)
    winners = frame.loc[frame.dropna(subset=["prc"]).groupby(["job", "seed"])["prc"].idxmax(), "candidate"].value_counts()
    table = frame.groupby("candidate")["seconds"].agg(["sum", "mean", "max"]).assign(wins=winners).fillna({"wins": 0})
    print(f"\n{frame.groupby(['job', 'seed']).ngroups} selections")
    print(table.sort_values("sum", ascending=False).round(3).to_string())
    if strategies:
        print_strategies(strategies)
    if boosting:
        print(f"\nboosting as shipped: {frame.loc[frame.candidate == BOOSTING, 'seconds'].sum():.2f} s")
        for variant, part in pd.DataFrame(boosting).groupby("variant", sort=False):
            quantiles = np.quantile(part["change"], [0.01, 0.05, 0.5, 0.95, 0.99]).round(4)
            print(f"{variant}: {part['seconds'].sum():.2f} s, {part['iterations'].mean():.1f} iterations, PRC change 1/5/50/95/99%: {quantiles}")


if __name__ == "__main__":
    main()
