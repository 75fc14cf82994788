from zeroplay.cli import main

raise SystemExit(main())
