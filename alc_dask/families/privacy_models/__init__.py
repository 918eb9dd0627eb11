"""k-anonymity, ℓ-diversity and t-closeness of a release's equivalence classes."""
