"""``python -m anyurl``: the ``anyurl`` command (:func:`anyurl.cli.main.main`)."""

from anyurl.cli.main import main

raise SystemExit(main())
