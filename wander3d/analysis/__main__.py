"""`python -m wander3d.analysis [README.md ...]`: print the metric definitions, or refresh them
in the given Markdown files (between the metrics markers)."""

from wander3d.analysis.metric_table import main

raise SystemExit(main())
