"""The pairs of baseline and attack predictions a scenario has recorded, column by column."""

import numpy as np

COLUMNS = (
    "target",
    "base_code",
    "base_confidence",
    "base_true",
    "base_correct",
    "attack_code",
    "attack_confidence",
    "attack_true",
    "attack_correct",
    "abstained",
)
"""``*_code`` and ``*_true`` are secret codes, or numbers for a secret scored within a tolerance."""

OTHERS = ("others_code", "others_confidence", "others_correct")
"""The attack on other people's rows (``baseline.sources.OthersAttack``), where it competes with the model."""


class PairLog:
    """Appends batches of pairs into arrays that double when full, so that a halting check reads
    views of what is recorded instead of concatenating every batch again."""

    def __init__(self, capacity: int = 256):
        self.arrays: dict[str, np.ndarray] | None = None
        self.capacity = capacity
        self.count = 0

    def append(self, **batch: np.ndarray) -> None:
        """Every name of ``COLUMNS``, and those of ``OTHERS`` in every batch or in none."""
        values = {name: np.asarray(batch[name]) for name in (*COLUMNS, *(OTHERS if "others_code" in batch else ()))}
        n = len(values["target"])
        if self.arrays is None:
            self.arrays = {name: np.empty(max(self.capacity, n), dtype=array.dtype) for name, array in values.items()}
        elif self.count + n > len(self.arrays["target"]):
            size = max(2 * len(self.arrays["target"]), self.count + n)
            self.arrays = {name: np.concatenate([array[: self.count], np.empty(size - self.count, array.dtype)]) for name, array in self.arrays.items()}
        for name, array in values.items():
            if not np.can_cast(array.dtype, self.arrays[name].dtype, casting="safe"):  # as concatenating would promote
                self.arrays[name] = self.arrays[name].astype(np.result_type(self.arrays[name], array))
            self.arrays[name][self.count : self.count + n] = array
        self.count += n

    def _recorded(self, name: str) -> np.ndarray:
        return self.arrays[name][: self.count] if self.arrays is not None else np.empty(0)

    def measures(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(base correct, base confidence, attack correct, attack confidence) of every pair so far."""
        return (self._recorded("base_correct"), self._recorded("base_confidence"), self._recorded("attack_correct"), self._recorded("attack_confidence"))

    def others(self) -> tuple[np.ndarray, np.ndarray]:
        """(correct, confidence) of the attack on other people for every pair so far."""
        return self._recorded("others_correct"), self._recorded("others_confidence")

    def columns(self) -> dict[str, np.ndarray]:
        """A copy of every recorded pair, column by column, with whether each side was right."""
        return {name: self._recorded(name).copy() for name in (self.arrays or dict.fromkeys(COLUMNS))}
