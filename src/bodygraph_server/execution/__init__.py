"""Where the chunks of a job run: the :class:`~.runners.ChunkRunner` protocol and its
runners (the Dask one: :mod:`.dask_runner`)."""
