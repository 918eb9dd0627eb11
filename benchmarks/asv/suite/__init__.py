"""airspeed velocity's benchmarks of alc_dask: small, fast versions (a second or less a sample) of
the costs the larger scripts of ``benchmarks/`` measure, so that asv can compare two commits.
``benchmarks/asv/asv.conf.json`` and ``docs/how-to/benchmarks.md`` say how to run them."""
