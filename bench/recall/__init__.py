"""The long-memory recall evaluation: conversations generated here, asked through recall(), scored by
session recall@k, hit@k and MRR per ability. Run it with `uv run python -m bench.recall` (run.py)."""
