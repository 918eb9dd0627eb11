"""A seeded synthetic population for demos and tests: correlated attributes and rare outliers.

Attributes depend on each other the way census attributes do (education on age, occupation on
education, income on both), so a baseline model can infer a lot, and a small share of outliers
have rare combinations that a leaky release gives away.
"""

import numpy as np
import pandas as pd

from alc_dask.anonymize import swap_frame

REGIONS = ["north", "south", "east", "west", "centre", "coast", "hills", "islands"]
EDUCATION = ["primary", "secondary", "vocational", "bachelor", "master", "doctorate"]
OCCUPATIONS = ["manual", "clerical", "technical", "professional", "manager", "academic"]


def make_population(rows: int = 5000, seed: int = 0, outlier_share: float = 0.02) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = np.clip(rng.normal(44, 14, rows), 18, 90).round()
    sex = rng.choice(["female", "male"], rows)
    region = rng.choice(REGIONS, rows, p=[0.2, 0.2, 0.15, 0.15, 0.1, 0.1, 0.06, 0.04])
    education_level = np.clip(np.round(rng.normal(2.2 + (age < 35) * 0.6, 1.2, rows)), 0, 5).astype(int)
    occupation_level = np.clip(education_level + rng.integers(-1, 2, rows), 0, 5)
    income = np.round(np.exp(rng.normal(9.8 + 0.25 * occupation_level + 0.01 * (age - 40).clip(0, 25), 0.35)), -2)
    hours = np.clip(np.round(rng.normal(38 + 2 * (occupation_level >= 4), 6, rows)), 5, 80)
    married = rng.random(rows) < 1 / (1 + np.exp(-(age - 32) / 6))
    condition = np.where(rng.random(rows) < 0.03 + 0.002 * (age - 18), "chronic", "none")

    outliers = rng.random(rows) < outlier_share
    income[outliers] = np.round(income[outliers] * rng.uniform(2, 4, outliers.sum()), -2)
    region[outliers] = "islands"
    condition[outliers] = rng.choice(["rare-a", "rare-b", "rare-c"], outliers.sum())
    return pd.DataFrame(
        {
            "age": age,
            "sex": sex,
            "region": region,
            "education": np.array(EDUCATION)[education_level],
            "occupation": np.array(OCCUPATIONS)[occupation_level],
            "income": income,
            "hours_per_week": hours,
            "married": np.where(married, "yes", "no"),
            "condition": condition,
        }
    )


def make_demo_release(rows: int = 5000, seed: int = 0) -> dict[str, pd.DataFrame]:
    """The people in the data, two swap-anonymized releases of it, weak (10% swapped) and strong
    (60%), and a control table: a quarter as many other people of the same population, never
    released (what a non-member looks like to an attacker)."""
    original = make_population(rows, seed)
    return {
        "original": original,
        "weak": swap_frame(original, 0.10, seed + 1),
        "strong": swap_frame(original, 0.60, seed + 2),
        "control": make_population(max(rows // 4, 1), seed + 1000),
    }
