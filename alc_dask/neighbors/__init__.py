"""The nearest-rows stack, one for every family: Gower distances of queries to the rows of a table.

- `kernel`: the Numba tile loop, one distance of a tile shared by two reducers, the minimum with the
  histogram of a secret there and the k nearest rows;
- `query`: queries laid out for the kernel against one table, and the scaling of continuous columns;
- `partitioned`: one map over a table's blocks (in process, or one Dask task per block where the
  block is held) and one tree reduce;
- `best_match`: the best row match's search over one or many tables (ALC attacks);
- `nearest`: the k nearest rows (membership, Anonymeter's linkability and inference, near duplicates).
"""
