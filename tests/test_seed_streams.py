"""One user seed never aligns two random purposes. A test release swapped with seed s and a
membership evaluation sampling its members with seed s took exactly the rows whose first column
was swapped as the members (both drew ``choice(n, k)`` from one generator state), and every
purpose now draws its own stream."""

import numpy as np

from alc_dask import Release
from alc_dask.anonymize import swap_frame
from alc_dask.apps.synthetic import make_population
from alc_dask.families.membership.family import Membership
from alc_dask.seeds import derived_seed, stream

SEED = 7


def test_members_sampled_with_the_seed_of_the_swap_are_not_the_swapped_rows():
    original = make_population(2000, seed=1)
    released = swap_frame(original, 0.2, seed=SEED)
    first_column = original.columns[0]  # swapped first, with the generator's first draws
    swapped = np.flatnonzero(released[first_column].to_numpy() != original[first_column].to_numpy())
    release = Release.load(original, [released], control=make_population(500, seed=2))
    swapped_rows = int(0.2 * len(original)) // 2 * 2  # pairs of rows; a few of them held one age already
    evaluation = Membership(attack="closest_distance", n_members=swapped_rows, sample_seed=SEED).evaluate(release, seed=SEED)
    predictions = evaluation.predictions.to_pandas()
    members = predictions.loc[predictions["side"] == "member", "target"].to_numpy()
    overlap = np.isin(members, swapped).mean()
    assert overlap < 0.5, f"{overlap:.0%} of the members have a swapped {first_column} (about {len(swapped) / len(original):.0%} by chance)"


def test_each_purpose_has_its_own_stream_the_same_on_every_call():
    draws = {purpose: tuple(stream(SEED, purpose).choice(1000, 20, replace=False)) for purpose in ("targets", "swap", "training rows", "membership sample")}
    assert len(set(draws.values())) == len(draws)
    assert tuple(stream(SEED, "targets").choice(1000, 20, replace=False)) == draws["targets"]
    assert stream(SEED, "replication", 100, 2).random() != stream(SEED, "replication", 100, 5).random()
    assert derived_seed(SEED, "model") != derived_seed(SEED, "model selection") and 0 <= derived_seed(SEED, "model") < 2**31
