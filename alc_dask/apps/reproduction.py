"""Table 2 and Figure 7 of Francis & Wagner 2025 (§6.1–6.2): our approach against the prior one, key by key.

A key is a (secret column, known columns) pair. "ours" is its best ALC over the best-base versus
best-attack measures; "no recall" its best ALC with the attack at recall 1 (same baseline);
"prior" its best ALC in the prior approach (swap-anonymized baseline, recall 1). Table 2 counts
the keys where the two approaches put a release on different sides of the risk thresholds.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from alc_dask.data import DISCRETIZED_SUFFIX
from alc_dask.errors import PathError
from alc_dask.measure import risk_label
from alc_dask.results.files import write_file

ALC_FLOOR = -0.2
KEY = ["dataset", "secret", "known"]
DISAGREEMENTS = [("at risk", "safe"), ("serious", "safe"), ("safe", "at risk"), ("safe", "serious")]
PAPER_TABLE2 = pd.DataFrame(
    {"no recall": [16.54, 0.59, 0.60, 0.06], "prior approach": [24.24, 1.24, 1.52, 0.01]},
    index=pd.MultiIndex.from_tuples(DISAGREEMENTS, names=["ours", "other"]),
)
"""The paper's published Table 2 (Francis & Wagner 2025, §6.1; percent of 8886 keys, weak releases)."""


def paper_label(alc) -> np.ndarray:
    """The paper's three labels: ALC below 0.5 (no loss included) is safe."""
    labels = risk_label(np.asarray(alc, dtype=float))
    return np.where(labels == "no loss", "safe", labels)


def normalize_key(secret: str, known: str | list) -> tuple[str, str]:
    """Secret without the discretized suffix; known columns as a sorted JSON list."""
    columns = json.loads(known) if isinstance(known, str) else list(known)
    return secret.removesuffix(DISCRETIZED_SUFFIX), json.dumps(sorted(columns))


def with_normalized_keys(frame: pd.DataFrame) -> pd.DataFrame:
    keys = [normalize_key(s, k) for s, k in zip(frame["secret"], frame["known"])]
    return frame.assign(secret=[k[0] for k in keys], known=[k[1] for k in keys])


def reference_keys(results_dir: Path, strength: str) -> pd.DataFrame:
    """Per key, the reference's ours / no recall / prior ALCs, from its published results."""

    def best(file: str, rows) -> pd.DataFrame:
        path = Path(results_dir) / file
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as error:  # missing, or not Parquet
            raise PathError(f"{path}: cannot be read as the reference's published results ({error})") from None
        frame = with_normalized_keys(frame.rename(columns={"secret_column": "secret", "known_columns": "known"}))
        frame["dataset"] = frame["dataset"].str.removesuffix(".parquet")
        return _best_rows(frame[rows(frame)], "alc")

    ours = best(f"all_secret_known_{strength}.parquet", lambda f: ~f["paired"])
    no_recall = best(f"all_secret_known_{strength}.parquet", lambda f: f["attack_recall"] == 1)
    prior = best(f"all_secret_known_prior_{strength}.parquet", lambda f: f["attack_recall"] == 1)
    return pd.DataFrame({"ours": ours["alc"], "no recall": no_recall["alc"], "prior approach": prior["alc"], "attack recall": ours["attack_recall"]})


def _best_rows(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """The row with the largest ``column`` of each key."""
    ranked = frame.sort_values(column, ascending=False, kind="stable")
    return ranked.drop_duplicates(KEY).set_index(KEY)


def our_keys(ours_scores: pd.DataFrame, prior_scores: pd.DataFrame) -> pd.DataFrame:
    """Per key, our ours / no recall / prior ALCs from engine score tables (columns dataset,
    secret, known, alc, alc_full_recall)."""
    ours, prior = with_normalized_keys(ours_scores), with_normalized_keys(prior_scores)
    best = _best_rows(ours, "alc")
    return pd.DataFrame(
        {
            "ours": best["alc"],
            "no recall": ours.groupby(KEY)["alc_full_recall"].max(),
            "prior approach": prior.groupby(KEY)["alc_full_recall"].max(),
            "attack recall": best["attack_recall"],
        }
    )


def label_agreement(ours: pd.DataFrame, reference: pd.DataFrame) -> pd.Series:
    """Share of common keys on which our and the reference's paper labels agree, per approach
    (keys where either side has no ALC for that approach are left out)."""
    common = ours.index.intersection(reference.index)
    shares = {}
    for column in ("ours", "no recall", "prior approach"):
        both = pd.concat([ours.loc[common, column], reference.loc[common, column]], axis=1).dropna()
        shares[column] = float(np.mean(paper_label(both.iloc[:, 0]) == paper_label(both.iloc[:, 1]))) if len(both) else np.nan
    return pd.Series(shares)


def figure7(keys: pd.DataFrame, title: str, path: Path) -> Path:
    """Ours against prior ALC per key, coloured by the attack recall of ours, with the risk thresholds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from alc_dask.families.presentation import png_bytes

    both = keys.dropna(subset=["ours", "prior approach"])
    x, y = both["prior approach"].clip(lower=ALC_FLOOR), both["ours"].clip(lower=ALC_FLOOR)
    figure, axes = plt.subplots(figsize=(6.4, 5.6), dpi=120)
    points = axes.scatter(x, y, c=both["attack recall"], cmap="viridis", vmin=0, vmax=1, s=14, alpha=0.8, edgecolors="none")
    for threshold in (0.5, 0.75):
        axes.axhline(threshold, color="grey", linestyle="--", linewidth=0.8)
        axes.axvline(threshold, color="grey", linestyle="--", linewidth=0.8)
    axes.plot([ALC_FLOOR, 1], [ALC_FLOOR, 1], color="black", linewidth=0.6)
    axes.set(xlim=(ALC_FLOOR - 0.03, 1.02), ylim=(ALC_FLOOR - 0.03, 1.02), xlabel="ALC, prior approach (recall 1)", ylabel="ALC, ours (best PRC)", title=title)
    figure.colorbar(points, ax=axes, label="attack recall (ours)")
    write_file(path, png_bytes(figure, dpi="figure"))
    plt.close(figure)
    return Path(path)


def table2(keys: pd.DataFrame) -> pd.DataFrame:
    """Percent of keys per disagreement (ours label, other label), for each other approach.

    Keys missing an ALC on either side are left out of that column; ALCs are clipped at −0.2.
    """
    columns = {}
    for other in ("no recall", "prior approach"):
        both = keys[["ours", other]].dropna().clip(lower=ALC_FLOOR)
        mine, theirs = paper_label(both["ours"]), paper_label(both[other])
        columns[other] = [100.0 * np.mean((mine == a) & (theirs == b)) if len(both) else np.nan for a, b in DISAGREEMENTS]
    return pd.DataFrame(columns, index=PAPER_TABLE2.index)


def release_dataset_strength(release: str) -> tuple[str, str]:
    """``adult-weak`` -> (``adult``, ``weak``): the naming of the paper's job files."""
    dataset, _, strength = release.rpartition("-")
    return dataset, strength


def compare_with_reference(scores: pd.DataFrame, reference_dir: Path, figures: Path) -> str:
    """Markdown: per strength, our Table 2 and the published results' on the same keys, the paper's,
    the agreement of risk labels, the highest ALC, and the Figure 7 plots (written to ``figures``).

    The published results are the paper's file, not what the reference package (1.0.32) computes on
    the same data (its baselines are often below guessing the most common value): they check Table
    2's arithmetic, not single attacks; benchmarks/bench_reference.py runs 1.0.32 itself."""
    ok = scores[scores["status"] == "ok"].copy()
    ok[["dataset", "strength"]] = [release_dataset_strength(r) for r in ok["release"]]
    lines = []
    for strength, part in ok.groupby("strength"):
        keys = our_keys(part[part["baseline"] == "ml"], part[part["baseline"] == "prior"])
        reference = reference_keys(reference_dir, strength)
        same = reference.loc[reference.index.intersection(keys.index)]
        ours_table, reference_table = table2(keys), table2(same)
        agreement = label_agreement(keys, same)
        lines += [
            f"## {strength} releases: {len(keys)} attacks ({', '.join(f'{d} {n}' for d, n in keys.groupby(level='dataset').size().items())})",
            "",
            "Table 2, percent of attacks where the approaches disagree on the risk label:",
            "",
            _markdown(pd.concat({"alc_dask": ours_table, "published results, same attacks": reference_table}, axis=1)),
            "",
        ]
        if strength == "weak":
            lines += ["The paper's Table 2 (all 8886 attacks of its experiment, weak releases):", "", _markdown(PAPER_TABLE2), ""]
        lines += [
            f"Cells of alc_dask's Table 2 within 5 points of the published results': {int(((ours_table - reference_table).abs() <= 5).sum().sum())} of 8 "
            f"(largest gap {(ours_table - reference_table).abs().max().max():.2f}).",
            f"Risk labels agreeing with the published results on the same attacks ({len(same)}): "
            + ", ".join(f"{name} {share:.1%}" for name, share in agreement.items())
            + ".",
            f"Highest ALC: alc_dask ours {keys['ours'].max():.3f}, prior {keys['prior approach'].max():.3f}; "
            f"published ours {same['ours'].max():.3f}, prior {same['prior approach'].max():.3f}.",
            "",
        ]
        for name, frame in (("alc_dask", keys), ("published", same)):
            path = figure7(frame, f"{name}, {strength} releases: ours vs prior", figures / f"figure7-{name}-{strength}.png")
            lines.append(f"![{name} {strength}]({path.name})")
        lines.append("")
    return "\n".join(lines)


def _markdown(frame: pd.DataFrame) -> str:
    flat = frame.copy()
    flat.index = [f"ours {a} / other {b}" for a, b in flat.index]
    flat.columns = [" · ".join(c) if isinstance(c, tuple) else c for c in flat.columns]
    header = "| | " + " | ".join(flat.columns) + " |"
    rule = "|---|" + "---:|" * len(flat.columns)
    rows = [f"| {index} | " + " | ".join(f"{v:.2f}%" for v in row) + " |" for index, row in zip(flat.index, flat.to_numpy())]
    return "\n".join([header, rule, *rows])


def with_paper_sample(spec, sample: int | None):
    """The job ``spec`` with every paper-protocol entry sampling ``sample`` attacks (None: all)."""
    from alc_dask.families.alc.entries import PaperProtocol

    scenarios = [s.model_copy(update={"sample": sample}) if isinstance(s, PaperProtocol) else s for s in spec.scenarios]
    return spec.model_copy(update={"scenarios": scenarios})
