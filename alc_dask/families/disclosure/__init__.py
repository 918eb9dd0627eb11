"""synthpop's replicated uniques and DiSCO of a release against its original (Raab, Nowok & Dibben 2024)."""
