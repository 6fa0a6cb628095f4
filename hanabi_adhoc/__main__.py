"""``python -m hanabi_adhoc``: the ``hanabi-adhoc`` command line."""

from hanabi_adhoc.cli import main

raise SystemExit(main())
