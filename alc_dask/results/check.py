"""Parts damaged since they were written: a file missing, cut short or not holding its rows.

A resumed run checks every part listed in ``parts.json`` or present from its Parquet footers alone
(not its data), and removes the damaged ones, so that their scenarios run again, once.
"""

from dataclasses import dataclass

from alc_dask.results.parts import Parts, in_write_order


@dataclass(frozen=True)
class Damage:
    """A part that is not as it was written."""

    part: str
    scenarios: int | None
    """How many scenarios the part held (None when neither the listing nor its scores files say)."""
    reason: str


def check_parts(parts: Parts) -> list[Damage]:
    """The damaged parts: a file the part should have is missing, cannot be read, or holds other
    than the rows listed. The listing then names the sound parts (those written just before a crash included)."""
    listed, present, predicted = parts.listing.entries(), parts.present(), parts.prediction_names()
    holders: dict[str, list[str]] = {}
    for family, names in present.items():
        for name in names:
            holders.setdefault(name, []).append(family)
    sound, damages = {}, []
    for name in in_write_order([*listed, *holders]):
        held = _held(parts, name, listed.get(name), holders.get(name, []), name in predicted)
        if isinstance(held, Damage):
            damages.append(held)
        else:
            sound[name] = held
    if sound != listed:
        parts.listing.save(sound)
    return damages


def _held(parts: Parts, name: str, listed: dict | None, families: list[str], predicted: bool) -> dict | Damage:
    """The rows of part ``name`` as its footers give them, or its damage."""
    written = None if listed is None else sum(listed["scores"].values())
    scores = {}
    for family in sorted({*(listed["scores"] if listed else ()), *families}):
        rows = _footer_rows(parts, parts.scores_path(family, name))
        if isinstance(rows, str):
            return Damage(name, written, f"scores/{family}/{name} {rows}")
        scores[family] = rows
    predictions = _footer_rows(parts, parts.predictions_path(name)) if predicted or (listed and listed["predictions"]) else 0
    if isinstance(predictions, str):
        return Damage(name, sum(scores.values()) if written is None else written, f"predictions/{name} {predictions}")
    held = {"scores": scores, "predictions": predictions}
    if listed is not None and held != listed:
        differences = [
            f"scores/{family}/{name} holds {_rows(scores.get(family, 0))}, not the {listed['scores'].get(family, 0)} written"
            for family in sorted({*scores, *listed["scores"]})
            if scores.get(family, 0) != listed["scores"].get(family, 0)
        ]
        if predictions != listed["predictions"]:
            differences.append(f"predictions/{name} holds {_rows(predictions)}, not the {listed['predictions']} written")
        return Damage(name, sum(scores.values()), "; ".join(differences))
    return held


def _footer_rows(parts: Parts, path: str) -> int | str:
    """Rows of a Parquet file, from its footer; or what is wrong with it."""
    try:
        return parts.files.footer_rows(path)
    except FileNotFoundError:
        return "is missing"
    except OSError as error:  # cut short, or not Parquet
        return f"cannot be read ({error})"


def _rows(count: int) -> str:
    return f"{count} row{'' if count == 1 else 's'}"
