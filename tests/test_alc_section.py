"""The ALC family's report section: every figure on its measure's scale and the baseline that won named."""

import pandas as pd

from alc_dask.families.alc.section import section


def test_the_precision_improvements_interval_is_shown_on_its_scale_and_the_winning_baseline_named():
    """An interval's lower end of −4.4·10⁷ (a baseline right for nearly all of few targets) said nothing a −1 does not."""
    scores = pd.DataFrame(
        {
            "release": ["r", "r"],
            "scenario_id": ["a", "b"],
            "secret": ["s", "t"],
            "known": ['["x"]', '["x"]'],
            "baseline": ["ml", "ml"],
            "model": ["the attack on other people", "random_forest"],
            "alc": [0.6, 0.1],
            "risk": ["at risk", None],
            "pi": [0.4, 0.2],
            "pi_low": [-4.4e7, 0.1],
            "pi_high": [0.9, 0.3],
            "pi_vulnerable": [True, True],
            "attack_precision": [0.9, 0.5],
            "attack_recall": [0.5, 0.5],
        }
    )
    shown = section("alc", scores)
    (pi_table,) = [table for title, table in shown.tables.items() if title.startswith("Vulnerable at matched coverage")]
    assert pi_table["pi_low"].tolist() == [-1.0, 0.1]
    assert shown.tables["Worst scenarios"]["model"].tolist() == ["the attack on other people", "random_forest"]
