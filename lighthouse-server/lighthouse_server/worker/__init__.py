"""The workers that run beside the service: extraction of facts from notes by a model (a round of
lighthouse.extract_notes() with the model as its extractor: extraction.py, with model.py, prompt.py and
items.py), their loop over every tenant (loop.py) and their status."""
