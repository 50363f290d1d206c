"""The ``bodygraph-server`` admin command: accounts, keys, templates, render keys, ``serve``."""
