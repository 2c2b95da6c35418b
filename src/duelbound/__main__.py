from duelbound.cli import main

raise SystemExit(main())
