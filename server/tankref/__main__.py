from tankref.cli import main

raise SystemExit(main())
