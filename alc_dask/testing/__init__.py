"""Checking an evaluation family against its contract, for alc_dask's own families and for plugins.
Each check is its own pytest test::

    from alc_dask.testing import parametrize_with_checks

    @parametrize_with_checks(["exact_copies"])
    def test_the_family_keeps_the_contract(check):
        check()

or all at once from a script (``check_family`` reports every check that fails)::

    from alc_dask.testing import check_family

    if __name__ == "__main__":
        print(check_family("exact_copies"))

A failed check raises a ``ContractError`` (an ``AssertionError``) naming the part of the contract
the family breaks; the entries it runs are the family's ``check_examples``.
"""

from alc_dask.plugins import lazy_exports

_EXPORTS = {
    "FamilyCheck": "alc_dask.testing.check",
    "check_family": "alc_dask.testing.check",
    "family_checks": "alc_dask.testing.check",
    "parametrize_with_checks": "alc_dask.testing.check",
    "NamedCheck": "alc_dask.testing.check",
    "ContractError": "alc_dask.testing.contract",
    "GROUPED": "alc_dask.testing.demo",
    "demo_columns": "alc_dask.testing.demo",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
