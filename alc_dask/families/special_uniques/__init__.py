"""Special uniques (SUDA2, SUDA scores, DIS-SUDA) of the original and the release, and the special uniques the release replicates."""
