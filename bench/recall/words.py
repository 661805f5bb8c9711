"""The key words of a text: what the paraphrase rule compares between a question and its evidence.

A key word is a word of letters that is not a function word; two key words are the same when their
stems are: the word without an ending ("ing", "ed", "es", "s"), cut to five letters. The stem errs on the
side of calling words the same ("trip" and "trips", "travel" and "travelling", "month" and "monthly"),
so a question that passes shares no stem with its evidence.
"""

from __future__ import annotations

import re

STEM = 5
_WORD = re.compile(r"[a-z]+")

_LISTED = """
    a about above after again against all am an and any are as at be been before being below between both
    but by can could did do does doing done down during each few for from further had has have having he
    her here hers herself him himself his how i i'd if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t ll ve re d m don didn doesn isn wasn aren weren won haven hasn hadn
    also got get gets one ones still yet ever lately recently back again really just
"""
FUNCTION_WORDS = frozenset(_LISTED.split())


SUFFIXES = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """A word without its ending ("ing", "ed", "es", "s"), cut to its first five letters."""
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)][:STEM]
    return word[:STEM]


def stems(text: str) -> set[str]:
    """The stems of the key words of a text."""
    return {stem(word) for word in _WORD.findall(text.lower()) if word not in FUNCTION_WORDS}


def shared(question: str, evidence: str) -> set[str]:
    """The stems the question and the evidence have in common (empty when the question is a paraphrase)."""
    return stems(question) & stems(evidence)


def word_count(text: str) -> int:
    return len(text.split())
