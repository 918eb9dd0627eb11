"""The WP29 evaluators (Anonymeter's singling out, linkability and inference), in process on a
known-truth release (a copy with 10% noise of 2 000 members, 2 000 control rows), 500 attacks each."""

from . import inputs

N_ATTACKS = 500


def _family(name: str):
    from alc_dask.families.wp29.inference import Inference
    from alc_dask.families.wp29.linkability import Linkability
    from alc_dask.families.wp29.singling_out import SinglingOut

    attacks = inputs.rows(N_ATTACKS, least=50)
    return {
        "singling_out univariate": lambda: SinglingOut(mode="univariate", n_attacks=attacks),
        "singling_out multivariate": lambda: SinglingOut(mode="multivariate", n_cols=3, n_attacks=attacks),
        "linkability": lambda: Linkability(aux_cols=[list(inputs.KNOWN[:3]), list(inputs.KNOWN[3:])], n_neighbors=10, n_attacks=attacks),
        "inference": lambda: Inference(secret=inputs.SECRET, aux_cols=list(inputs.KNOWN), n_attacks=attacks),
    }[name]()


class Wp29:
    params = ["singling_out univariate", "singling_out multivariate", "linkability", "inference"]
    param_names = ["evaluator"]

    def setup(self, evaluator):
        self.release = inputs.truth_release("noisy_10", 2_000)
        self.family = _family(evaluator)
        self.family.evaluate(self.release, seed=0)  # compiled before timing

    def time_evaluate(self, evaluator):
        self.family.evaluate(self.release, seed=0)
