"""Recall: what is in memory, found by the graph (traverse), by words (text), and by meaning (vector)."""
