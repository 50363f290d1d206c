"""Running the chunks of the asynchronous jobs (docs/jobs.md): where a chunk is computed
(:mod:`.runners`, the Dask cluster: :mod:`.dask_runner`), what computing one means
(:mod:`.chunks`) and the loop that claims them (:mod:`.worker`)."""
