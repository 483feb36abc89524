"""The ``anyurl`` command line: ``parse``, ``extract``, ``get`` (and ``anyurl URL``)."""
