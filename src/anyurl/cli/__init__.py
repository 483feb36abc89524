"""The ``anyurl`` command line, a module per subcommand: ``parse``, ``extract``, ``get``
(and ``anyurl URL``), ``mirror``, ``demo``, ``serve`` (the list: ``common.COMMANDS``)."""
