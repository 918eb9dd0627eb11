"""A custom attack in the style of the paper's attack loop, measured with the ALC.

The attack: among anonymized rows that agree with the target on every known categorical column,
predict the most common secret value; the rank score is that value's share among them. Run it:

    .venv/bin/python examples/custom_attack.py
"""

from collections import Counter

import pandas as pd

from alc_dask import AttackLoop, Release
from alc_dask.apps.synthetic import make_demo_release

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

    result = loop.result()
    print(result.to_frame()[["secret", "attack", "model", "halt_code", "pairs", "base_prc", "attack_prc", "alc"]].to_string(index=False))


if __name__ == "__main__":
    main()
