"""Bookkeeping over the store: accounts and API keys, credits, the sliding-window rate limit,
group commits and the reservation sweep."""
