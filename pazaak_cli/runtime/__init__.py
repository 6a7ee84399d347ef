"""Where work runs and what outlives a run: ``executors`` (batches of work on local processes
or a Dask cluster, and the pipe that deals a solver's hands out to two cores) and ``savefile``
(a match saved atomically, and its lock)."""
