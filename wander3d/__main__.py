"""`python -m wander3d`: the same as the `wander3d` command."""

from wander3d.cli import main

raise SystemExit(main())
