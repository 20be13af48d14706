"""``python -m tools.learn``: the whole pipeline (see :mod:`tools.learn.pipeline`)."""

from tools.learn.pipeline import main

raise SystemExit(main())
