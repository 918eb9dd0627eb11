"""The pairs of baseline and attack predictions a scenario has recorded, column by column."""

import numpy as np
import pandas as pd

COLUMNS = ("target", "base_code", "base_confidence", "base_true", "attack_code", "attack_confidence", "attack_true", "abstained")


class PairLog:
    """Appends batches of pairs; hands out the arrays the measures need and the predictions frame."""

    def __init__(self):
        self.columns = {name: [] for name in COLUMNS}
        self.count = 0

    def append(self, **batch: np.ndarray) -> None:
        for name in COLUMNS:
            self.columns[name].append(np.asarray(batch[name]))
        self.count += len(batch["target"])

    def measures(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(base correct, base confidence, attack correct, attack confidence) of every pair so far."""
        frame = {name: np.concatenate(parts) for name, parts in self.columns.items()}
        return (
            frame["base_code"] == frame["base_true"],
            frame["base_confidence"],
            frame["attack_code"] == frame["attack_true"],
            frame["attack_confidence"],
        )

    def frame(self) -> pd.DataFrame:
        data = {name: np.concatenate(parts) if parts else np.empty(0) for name, parts in self.columns.items()}
        frame = pd.DataFrame(data)
        frame["base_correct"] = frame["base_code"] == frame["base_true"]
        frame["attack_correct"] = frame["attack_code"] == frame["attack_true"]
        return frame
