"""Anonymizers that make test releases, one module per scheme, so every attack can be tried on each.

`swap` exchanges values between rows (the prior approach's baseline); `mondrian` generalizes
quasi-identifiers into k-anonymous, optionally ℓ-diverse groups (a horizontal scheme); `anatomy`
publishes the quasi-identifiers and the sensitive values of ℓ-diverse groups in two separate tables
(a vertical scheme). All are deterministic given their arguments (and seed).
"""

from alc_dask.anonymize.anatomy import anatomize
from alc_dask.anonymize.mondrian import mondrian
from alc_dask.anonymize.swap import swap_encoded, swap_frame

__all__ = ["anatomize", "mondrian", "swap_encoded", "swap_frame"]
