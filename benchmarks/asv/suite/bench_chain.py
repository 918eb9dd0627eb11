"""The relative-threat family's Bayesian chain (Boreale et al. 2020), short: 2 000 sweeps on a
Mondrian release (k = ℓ = 4) of 2 000 synthetic people, one core."""

import tempfile
from pathlib import Path

from . import inputs

QUASI_IDENTIFIERS = ["age", "sex", "region", "married", "education"]
SENSITIVE = "occupation"


class BayesianChain:
    def setup(self):
        from alc_dask.anonymize import mondrian
        from alc_dask.apps.synthetic import make_population
        from alc_dask.data import Release
        from alc_dask.families.relative_threat.group_posterior import ChainSettings, run_chain

        folder = Path(tempfile.mkdtemp(prefix="asv-chain-"))
        people = make_population(inputs.rows(2_000), seed=0)[[*QUASI_IDENTIFIERS, SENSITIVE]]
        people.to_csv(folder / "original.csv", index=False)
        mondrian(people, QUASI_IDENTIFIERS, SENSITIVE, k=4, l=4).to_csv(folder / "k4.csv", index=False)
        grouped = {"scheme": "generalized", "table": str(folder / "k4.csv"), "sensitive": SENSITIVE, "group": "group", "k": 4, "l": 4}
        self.grouped = Release.load(folder / "original.csv", [], grouped=grouped).grouped
        self.settings = ChainSettings(iterations=max(200, inputs.rows(2_000)), burn_in=100, thin=100)
        self.run_chain = run_chain
        self.run_chain(self.grouped, ChainSettings(iterations=200, burn_in=100, thin=10), 0)  # compiled before timing

    def time_chain(self):
        self.run_chain(self.grouped, self.settings, 1)
