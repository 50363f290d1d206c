"""The ``bodygraph`` command line: :mod:`~bodygraph.cli.main` builds the parser from one
module per subcommand (:mod:`~bodygraph.cli.chart`, :mod:`~bodygraph.cli.batch`), each with an
``add_parser(subparsers, lang)`` function, and maps errors to one line and an exit status."""
