"""The domain tables as data: gates, centers, channels, crosses and their wording
(from ``data/hd-tables.json``, loaded once, typed)."""
