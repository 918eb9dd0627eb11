"""Attacks: the one contract they follow and what they return (``base``), how they are found by name
and kind (``registry``), and their states prepared once per release in a process (``prepared``)."""

from alc_dask.attacks.base import ABSTAINED, AttackKind, AttributeAttack, AttributeTask, MembershipAttack, Predictions, TargetBlock

__all__ = ["ABSTAINED", "AttackKind", "AttributeAttack", "AttributeTask", "MembershipAttack", "Predictions", "TargetBlock"]
