from anyurl.cli.main import main

raise SystemExit(main())
