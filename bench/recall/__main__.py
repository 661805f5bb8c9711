"""`uv run python -m bench.recall`: the long-memory recall evaluation (run.py)."""

import sys

from .run import main

sys.exit(main())
