"""The jobs family: ``/v2/jobs`` (an extension beyond the contract, docs/jobs.md)."""
