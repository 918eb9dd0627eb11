"""Imported by the local workers' fork server (``worker_server.WORKER_MODULES``), not by the rest
of the package: one call of a cached Numba kernel sets up Numba's compiler and CPU target, 0.3 s that
every forked worker would otherwise spend at its first kernel."""

import numpy as np

from alc_dask.splitmix import next_word

next_word(np.uint64(0))
