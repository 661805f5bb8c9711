"""The write path: rows checked, decided by the write rule, and written; refusals kept."""
