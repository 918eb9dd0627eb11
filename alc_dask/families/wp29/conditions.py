"""How the predicate kernel reads a condition, once turned into its interval form: a closed interval
a present value must lie in, a test of a missing value, ``!=`` a value, or the value's presence.
Shared by the predicates (which write the form) and the Numba kernel (which reads it), so that
neither imports the other at load time: the kernel, and Numba with it, loads only to count."""

INTERVAL, NULL, NOT_EQUAL, PRESENT = range(4)
