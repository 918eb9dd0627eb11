"""Disclosure counting (RepU/DiSCO of one key set with a target, Taub et al. 2018's measures as
synthpop computes them) and k, ℓ, t of the release's classes, in process on a known-truth release
(a copy with 10% noise of 20 000 members, 20 000 control rows)."""

from . import inputs

AGE_BANDS = [20, 30, 40, 50, 60, 70]


class Disclosure:
    params = ["disclosure", "privacy_models"]
    param_names = ["family"]

    def setup(self, family):
        from alc_dask.families.disclosure.family import Disclosure as DisclosureFamily
        from alc_dask.families.privacy_models.family import PrivacyModels

        self.release = inputs.truth_release("noisy_10", 20_000)
        if family == "disclosure":
            self.family = DisclosureFamily(keys=["age", "sex", "region"], target="occupation", bins={"age": AGE_BANDS})
        else:
            self.family = PrivacyModels(
                declared_k=5,
                declared_l=2,
                declared_t=0.2,
                quasi_identifiers=["age", "sex", "region", "married"],
                sensitive="occupation",
                bins={"age": AGE_BANDS},
            )
        self.family.evaluate(self.release, seed=0)

    def time_evaluate(self, family):
        self.family.evaluate(self.release, seed=0)
