"""`python -m gradwalk ...`: the `gradwalk` command (server/cli.py)."""
from gradwalk.server.cli import main

raise SystemExit(main())
