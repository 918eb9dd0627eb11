"""The measure layer: PRC, ALC, Wilson intervals, best PRC over cuts, halting, risk labels,
precision improvement at matched coverage, Anonymeter's privacy risks, membership inference at
realistic base rates, and the lower bound on ε a membership attack proves (DP auditing).

Pure numpy, no I/O. Each module cites the paper its formulas come from; where the ALC paper
(Francis & Wagner 2025) leaves a detail open, the reference implementation (anonymity-loss-coefficient
1.0.32) decides, or the module says the rule is the project's own.
"""

from alc_dask.measure._checks import SettingError
from alc_dask.measure.best import MeasureSettings, PrcResult, best_prc, prc_at_full_recall
from alc_dask.measure.coefficient import alc, prc
from alc_dask.measure.dp_audit import EpsilonBound, epsilon_lower_bound
from alc_dask.measure.halting import Checkpoint, HaltCode, HaltingMonitor, HaltingRules
from alc_dask.measure.improvement import MatchedCoverage, matched_coverage, precision_improvement
from alc_dask.measure.interval import wilson_interval
from alc_dask.measure.membership import DEFAULT_SKEWS, FPR_TARGETS, RECALLS, PrecisionAtSkew, Roc, Skew, TprAtFpr, precision_at_skew
from alc_dask.measure.privacy_risk import AttackCounts, PrivacyRisk, SuccessRate, bounded, residual_rate, singling_out_probability, success_rate
from alc_dask.measure.recall import RecallBasis, pretargeted_scale, recall_pretargeted, recall_random
from alc_dask.measure.risk import LABELS, RiskThresholds, risk_label
from alc_dask.measure.tolerance import Tolerance

__all__ = [
    "MatchedCoverage",
    "matched_coverage",
    "precision_improvement",
    "DEFAULT_SKEWS",
    "FPR_TARGETS",
    "RECALLS",
    "PrecisionAtSkew",
    "Roc",
    "Skew",
    "TprAtFpr",
    "precision_at_skew",
    "EpsilonBound",
    "epsilon_lower_bound",
    "LABELS",
    "AttackCounts",
    "PrivacyRisk",
    "SuccessRate",
    "bounded",
    "residual_rate",
    "singling_out_probability",
    "success_rate",
    "Checkpoint",
    "HaltCode",
    "HaltingMonitor",
    "HaltingRules",
    "MeasureSettings",
    "PrcResult",
    "RecallBasis",
    "RiskThresholds",
    "Tolerance",
    "SettingError",
    "alc",
    "best_prc",
    "prc",
    "prc_at_full_recall",
    "pretargeted_scale",
    "recall_pretargeted",
    "recall_random",
    "risk_label",
    "wilson_interval",
]
