"""A custom attack measured with the ALC, written two ways.

The attack: among anonymized rows that agree with the target on every known categorical column,
predict the most common secret value; the rank score is that value's share among them.

1. In the style of the paper's attack loop (``AttackLoop``): the loop hands you one target at a
   time with its known values, you answer with a value and a score.
2. As an attack class (``alc_dask.attacks.base.AttributeAttack``): prepared once per release (the
   groups of anonymized rows), then asked for blocks of targets. Registered by name, it runs
   anywhere a built-in attack does: ``run_attack``, job files, a cluster's workers.

Both give the same guesses on the same targets, so the same ALC. Run it:

    .venv/bin/python examples/custom_attack.py
"""

from collections import Counter, defaultdict

import numpy as np
import pandas as pd

from alc_dask import AttackLoop, Release, register_attack, run_attack
from alc_dask.apps.synthetic import make_demo_release
from alc_dask.attacks.base import ABSTAINED, AttributeAttack, Predictions

SECRET = "occupation"
KNOWN = ["sex", "region", "education", "married"]


def exact_match_attack(anonymized: pd.DataFrame):
    groups = anonymized.groupby(KNOWN, dropna=False)[SECRET].agg(lambda values: Counter(values).most_common(1)[0] + (len(values),))

    def guess(known: dict):
        key = tuple(known[column] for column in KNOWN)
        if key not in groups.index:
            return None, 0.0
        value, count, total = groups[key]
        return value, count / total

    return guess


class ExactMatch(AttributeAttack):
    """The same attack on the release's encoded tables (every value a code)."""

    def prepare(self, release, task) -> dict:
        """Per combination of known codes in the first anonymized table: (modal secret code, its count, rows)."""
        table = release.anonymized[0]
        groups = defaultdict(Counter)
        for key, code in zip(zip(*(table.column_array(c) for c in task.known)), release.true_codes(task.secret, table)):
            groups[key][code] += 1
        return {key: (*counts.most_common(1)[0], counts.total()) for key, counts in groups.items()}

    def predict(self, prepared: dict, targets) -> Predictions:
        rows = targets.release.targets(targets.rows, targets.source)
        found = [prepared.get(key) for key in zip(*(rows.column_array(c) for c in targets.task.known))]
        codes = np.array([ABSTAINED if f is None else f[0] for f in found], dtype=np.int32)
        confidence = np.array([0.0 if f is None else f[1] / f[2] for f in found])
        return Predictions(codes, confidence, codes == ABSTAINED)


COLUMNS = ["secret", "attack", "model", "halt_code", "pairs", "base_prc", "attack_prc", "alc"]


def main() -> None:
    tables = make_demo_release(rows=4000, seed=0)
    release = Release.load(tables["original"], [tables["weak"]])
    guess = exact_match_attack(tables["weak"])

    loop = AttackLoop(release, secret=SECRET, known=KNOWN, name="exact_match", seed=0)
    for target in loop:
        value, score = guess(target.known)
        if value is None:
            loop.abstain()
        else:
            loop.predict(value, confidence=score)
    by_loop = loop.result()

    register_attack("exact_match", ExactMatch)
    by_class = run_attack(release, SECRET, KNOWN, attack="exact_match", seed=0)
    print(pd.concat([by_loop.to_frame(), by_class.to_frame()])[COLUMNS].to_string(index=False))


if __name__ == "__main__":
    main()
