"""bodygraph.batch.job."""
