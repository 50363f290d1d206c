"""Running the chunks of the asynchronous jobs (docs/jobs.md): where a chunk is computed
(:mod:`.runners`), what computing one means (:mod:`.chunks`) and the loop that claims them
(:mod:`.worker`)."""
