"""Imported by the local workers' fork server (``worker_server.WORKER_MODULES``, last), not by the
rest of the package: one call of a cached Numba kernel sets up Numba's compiler and CPU target, 0.3 s
that every forked worker would otherwise spend at its first kernel. Then every object the server
holds is frozen, as Python's documentation advises before forking (``gc.freeze``): a worker's
garbage collections skip the modules it was forked with instead of writing to their pages, which
the workers would otherwise each copy. Collection, paused while the server imported
(``server_imports``), is resumed: the workers forked from here collect as any process does."""

import gc

import numpy as np

from alc_dask.splitmix import next_word

next_word(np.uint64(0))
gc.freeze()
gc.enable()
