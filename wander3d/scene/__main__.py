"""`python -m wander3d.scene [README.md ...]`: print the scene-file reference table, or refresh
it in the given Markdown files (between the scene-keys markers)."""

from wander3d.scene.schema import main

raise SystemExit(main())
