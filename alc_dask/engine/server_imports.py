"""Imported first by the local workers' fork server (``worker_server.WORKER_MODULES``), not by the
rest of the package: the server's garbage collection is paused while it imports what the workers
run, and ``worker_warmup`` (imported last) resumes it. Every few thousand objects an import makes,
Python's collector walks every object made so far: five full collections took 0.4 s of the 2.0 s a
check of 2 000 rows waited for its workers, and imports make almost no garbage to collect."""

import gc

gc.disable()
