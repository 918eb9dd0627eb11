"""Seeded example predictions for the first-run demo: a baseline and a stronger attack.

Confidence tracks correctness as in real attacks: the most confident predictions are right more
often, so the best PRC sits at a cut below recall 1.
"""

import numpy as np
import pandas as pd


def example_predictions(targets: int = 2000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for kind, skill in (("base", 0.55), ("attack", 0.8)):
        confidence = np.round(rng.beta(2 + 4 * skill, 3, size=targets), 3)
        correct = rng.random(targets) < np.clip(confidence * (0.6 + 0.5 * skill), 0, 1)
        frames.append(pd.DataFrame({"kind": kind, "correct": correct, "confidence": confidence}))
    return pd.concat(frames, ignore_index=True)
