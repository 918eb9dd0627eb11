"""One ALC attack scenario and the density-ratio membership attack, in process on a known-truth
release (``alc_dask.testing.truth``: a copy with 10% noise of 2 000 members, 2 000 control rows)."""

from . import inputs


class AlcScenario:
    """The ALC loop of ``best_row_match`` against the ML baseline, secret ``education``, seven known columns."""

    def setup(self):
        from alc_dask.families.alc.loop import run_attack

        self.release = inputs.truth_release("noisy_10", 2_000)
        self.run_attack = run_attack
        self.run_attack(self.release, inputs.SECRET, list(inputs.KNOWN), seed=0)  # compiled before timing

    def time_best_row_match(self):
        self.run_attack(self.release, inputs.SECRET, list(inputs.KNOWN), seed=0).measures()


class DensityRatio:
    """The membership family's ``density_ratio`` attack: its k-nearest density (default) and its mixture."""

    params = ["knn", "mixture"]
    param_names = ["density"]

    def setup(self, density):
        from alc_dask.families.membership.family import Membership

        self.release = inputs.truth_release("noisy_10", 2_000)
        self.family = Membership(attack="density_ratio", attack_params={"density": density})
        self.family.evaluate(self.release, seed=0)  # compiled before timing

    def time_evaluate(self, density):
        self.family.evaluate(self.release, seed=0)

    def track_auc(self, density):
        """The AUC: a change of it is a change of the scores, not of the speed."""
        return self.family.evaluate(self.release, seed=0).measures["auc"]

    track_auc.unit = "AUC"
