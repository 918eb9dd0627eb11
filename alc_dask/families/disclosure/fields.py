"""The disclosure family's measures: synthpop's shares, the control's, and the headline risk."""

import pyarrow as pa

from alc_dask.families.base import column

DISCLOSURE_FIELDS = (
    column("keys", pa.string(), "the quasi-identifiers an intruder knows, as a JSON list"),
    column("target", pa.string(), "the attribute an intruder would learn (none: identity disclosure alone)"),
    column("headline_measure", pa.string(), "the share the headline compares with the control's: disco, or repu without a target"),
    column("n_original", pa.int64(), "records of the original table"),
    column("n_release", pa.int64(), "records of the anonymized table"),
    column("n_control", pa.int64(), "records of the control table (0: none)"),
    column("uio", pa.float64(), "UiO: share of the original's records unique on the keys in the original"),
    column("uis", pa.float64(), "UiS: share of the release's records unique on the keys in the release"),
    column("uiois", pa.float64(), "UiOiS: share of the original's records unique in the original whose key is in the release"),
    column("repu", pa.float64(), "RepU: share of the original's records unique on the keys in both the original and the release"),
    column("dio", pa.float64(), "DiO (synthpop's Dorig): share of the original's records whose key has one target value in the original"),
    column("dsyn", pa.float64(), "Dsyn: share of the release's records whose key has one target value in the release"),
    column("in_release", pa.float64(), "iS: share of the original's records whose key is in the release"),
    column("dis", pa.float64(), "DiS: share of the original's records whose key has one target value in the release"),
    column("disco", pa.float64(), "DiSCO: share of the original's records whose key has one target value in the release, their own"),
    column("disdio", pa.float64(), "DiSDiO: share of the original's records that are DiSCO and disclosive in the original"),
    column("control_repu", pa.float64(), "RepU of the control table's records against the release: a non-member's"),
    column("control_disco", pa.float64(), "DiSCO of the control table's records against the release: a non-member's"),
    column("share", pa.float64(), "the headline's share of the original (DiSCO, or RepU without a target)"),
    column("control_share", pa.float64(), "the same share of the control table (none without a control table)"),
    column("disclosure_risk", pa.float64(), "the original's share beyond the control's, (share - control) / (1 - control) of Wilson rates, in [0, 1]"),
    column("disclosure_risk_low", pa.float64(), "low end of the risk's interval"),
    column("disclosure_risk_high", pa.float64(), "high end of the risk's interval"),
    column("n_hits", pa.int64(), "original records counted by the headline's share"),
    column("n_control_hits", pa.int64(), "control records counted by the same share"),
    column("n_disco_records", pa.int64(), "the original's DiSCO records (the first max_records are listed as exposed)"),
    column(
        "risk",
        pa.string(),
        "label of disclosure_risk on the threshold 0.09: no loss (0), safe (interval below), at risk (straddling), serious (interval at or past)",
    ),
    column("warning", pa.string(), "what limits the comparison: no control table, a control of another size"),
)
