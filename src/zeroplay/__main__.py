import sys

try:
    from zeroplay.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line module loads: as zeroplay.cli.main says it
    print("interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
