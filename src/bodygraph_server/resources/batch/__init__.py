"""The batch family: ``POST /v2/charts/batch`` (an extension beyond the contract)."""
