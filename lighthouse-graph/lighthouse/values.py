"""What a name, a key and a value may hold: every input limit, checked before any query is built."""

from __future__ import annotations

import json
import json.encoder
import math
import re
import unicodedata
from datetime import datetime

from .errors import Refused, WrongType
from .kinds import OWNED_NAMES, PLAIN_NAME, Kind

MAX_NAME = 200  # a key, id, agent, user or other name, in visible characters
MAX_VALUES = 200  # values in a row or entry
MAX_TARGETS = 200  # targets of one relation
MAX_REFERENCES = 200  # references of an entry or episode
MAX_ITEMS = 1_000  # items of one list value
MAX_TEXT = 100_000  # characters of one text value
MAX_ROW = 200_000  # characters of a whole row or entry
MAX_KEPT = 2_000  # characters of a refused write that are kept
MAX_QUESTION = 1_000  # characters of a question that are read
MAX_QUESTION_WORDS = 20
MAX_WORD = 50
MAX_LEASE = 7 * 24 * 3600  # seconds
INT_RANGE = (-(2**63), 2**63 - 1)
FLOAT_DIGITS = 15  # significant digits of a float that FalkorDB 4.22 gives back


MAX_DEPTH = 20  # containers inside containers in what a caller gives


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_ASCII_WORD = re.compile("[a-z0-9]+")


def _bad_characters(text: str) -> str | None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    return "a NUL character" if found.group() == "\x00" else "a lone surrogate"


_TYPE_NAME = type.__dict__["__name__"]


def sort_of(given: object) -> str:
    """The name of the type of what was given, read so that no metaclass can lie about it or raise."""
    return _TYPE_NAME.__get__(type(given))


def printable(given: object) -> str:
    """A short, printable form of what was given, for a message."""
    try:
        if type(given) is str:
            return ascii(given[:80])[:80]
        return ascii(given)[:80] if type(given) is int else sort_of(given)
    except ValueError:  # an int too long to print
        return "a number too long to show"


def text(value: object, what: str, limit: int = MAX_TEXT) -> str:
    """A string that can be stored: exactly a str, no NUL, no lone surrogate, at most limit characters.

    Exactly a str: a subclass could change how it prints, measures or quotes into a query.
    """
    if type(value) is not str:
        raise Refused(f"{what} must be text, not {sort_of(value)}")
    if len(value) > limit:
        raise Refused(f"{what} must be text of at most {limit} characters")
    bad = _bad_characters(value)
    if bad:
        raise Refused(f"{what} must be text without {bad}")
    return value


def name(value: object, what: str = "a name", *, longest: int = MAX_NAME) -> str:
    """A name (id, by, agent, user): exactly a str of 1 to 200 characters (longest), no space at either
    end, and no character of a Unicode C category or a line or paragraph separator. Else Refused, "must
    be text"."""
    if type(value) is not str or not value or len(value) > longest:
        raise Refused(f"{what} must be text of 1 to {longest} characters: {printable(value)}")
    if value != value.strip():
        raise Refused(f"{what} must be text with no space at either end: {printable(value)}")
    if value.isascii() and value.isprintable():  # no ASCII character it lets through is of a C category
        return value
    for char in value:
        # C: controls, format marks (such as bidi overrides), surrogates, unassigned; Zl, Zp: line breaks.
        category = unicodedata.category(char)
        if category[0] == "C" or category in ("Zl", "Zp"):
            raise Refused(f"{what} must be text with only characters that can be printed: {printable(value)}")
    return value


def written_key(value: object, what: str = "a key") -> str | int:
    """key(), for the key of an entity a write may create (a row's, an update's, a relation's target):
    not 0. FalkorDB 4.22.1 keeps 0 out of its index once it loads a graph from disk (false and 0.0 too):
    an entity of key 0 was then not found, so written twice, and its CREATE under the unique constraint
    on keys crashed the server (SIGSEGV)."""
    found = key(value, what)
    if found == 0 and type(found) is int:
        raise Refused(f"{what} may not be 0: FalkorDB 4.22.1 loses it from its index after a restart")
    return found


# An entry's id is its episode's id (a name), "/" and its number, at most 5,000 (episodes.MAX_ENTRIES).
MAX_ENTRY_ID = MAX_NAME + len("/5000")


def entry_id(value: object, what: str = "an entry id") -> str:
    """An entry id: a name (API 1.2), or longer only as an episode id that is a whole name, "/" and a
    number of at most four digits, the id of one of its entries."""
    checked = name(value, what, longest=MAX_ENTRY_ID)
    if len(checked) > MAX_NAME:
        episode, _, number = checked.rpartition("/")
        if not (
            len(episode) <= MAX_NAME and 0 < len(number) <= 4 and number.isdecimal() and number.isascii()
        ):
            raise Refused(
                f"{what} must be text of 1 to {MAX_NAME} characters, or an episode id and /<number>: "
                f"{printable(value)}"
            )
    return checked


def key(value: object, what: str = "a key") -> str | int:
    """An entity key: a name, or exactly an int in the signed 64-bit range (a bool is not a key)."""
    if type(value) is int:
        if not INT_RANGE[0] <= value <= INT_RANGE[1]:
            raise Refused(f"{what} is out of the 64-bit range")
        return value
    if type(value) is not str:
        raise Refused(f"{what} must be text or a whole number, not {sort_of(value)}")
    return name(value, what)


def property_name(
    value: object, what: str = "a value's name", *, reserved: frozenset[str] = OWNED_NAMES
) -> str:
    """A property name ([A-Za-z_][A-Za-z0-9_]{0,99}) that is not reserved: by default, not one the library
    owns on entities and States; a record passes the names the API reserves for it instead."""
    if type(value) is not str or not PLAIN_NAME.match(value):
        raise Refused(f"{what} must be a property name ([A-Za-z_][A-Za-z0-9_]{{0,99}}): {printable(value)}")
    if value in reserved:
        raise Refused(f"{what} {value!r} belongs to the library")
    return value


_PLAIN = frozenset({bool, int, float, str, datetime, Kind})  # the types plain() keeps as they are


def plain(given: object, what: str = "the input", depth: int = 0) -> object:
    """What a caller gave, copied as plain values: None, bool, int, float, str, datetime and Kind, in
    dicts (text keys), lists and tuples. Anything else, or anything whose reading raises, is Refused.

    Every other check reads only this copy, so an object that lies about its type, length or items
    costs one refusal and cannot make a later step fail half-way.
    """
    try:
        kind = type(given)
        if given is None or kind in _PLAIN:
            return given
        if depth >= MAX_DEPTH:
            raise Refused(f"{what} is nested more than {MAX_DEPTH} deep")
        # An item that is itself plain is copied here, not by a call of its own: most items are.
        if kind is dict:
            copied = {}
            for name_given, item in dict.items(given):
                if type(name_given) is not str:
                    raise Refused(f"{what} has a key that is not text: {sort_of(name_given)}")
                copied[name_given] = (
                    item if item is None or type(item) in _PLAIN else plain(item, what, depth + 1)
                )
            return copied
        if kind is list or kind is tuple:
            items = [
                item if item is None or type(item) in _PLAIN else plain(item, what, depth + 1)
                for item in (list.__iter__(given) if kind is list else tuple.__iter__(given))
            ]
            return items if kind is list else tuple(items)
    except Refused:
        raise
    except Exception as error:  # what the caller gave could not even be read
        raise Refused(f"{what} could not be read: {sort_of(error)}") from None
    raise Refused(f"{what} holds a {sort_of(given)}, which cannot be stored")


def stored_float(number: float, what: str) -> float:
    """A float as FalkorDB 4.22 gives it back: to 15 significant digits (it replies with %.15g).

    Stored so, a value read back equals the value written, and a query that compares it with what a
    caller sends again finds it. Refused when not finite, or so large that it would read back as infinity.
    """
    if not math.isfinite(number):
        raise Refused(f"{what} is not a finite number")
    read_back = float(format(number, f".{FLOAT_DIGITS}g"))
    if not math.isfinite(read_back):
        raise Refused(f"{what} is too large to be read back: {number!r}")
    return read_back


def scalar(value: object, what: str) -> str | int | float | bool:
    """One stored value: a bool, a 64-bit int, a float as it reads back (stored_float), or text."""
    kind = type(value)
    if kind is bool:
        return value
    if kind is int:
        if not INT_RANGE[0] <= value <= INT_RANGE[1]:
            raise Refused(f"{what} is out of the 64-bit range")
        return value
    if kind is float:
        return stored_float(value, what)
    if kind is str:
        return text(value, what)
    raise Refused(f"{what} cannot be stored: {sort_of(value)}")


def value(item: object, what: str) -> object:
    """A stored value: text, a number, a bool, or a list of at most 1,000 of one of those."""
    if type(item) is list or type(item) is tuple:
        if len(item) > MAX_ITEMS:
            raise Refused(f"{what} is a list of more than {MAX_ITEMS:,} items")
        return [scalar(one, f"an item of {what}") for one in item]
    if item is None:
        raise Refused(f"{what} is None: leave a value out to remove it")
    return scalar(item, what)


# Names of values that were found to be plain property names: the rows of a batch mostly share their
# names, and a name seen once is not matched again (whether it is reserved is still asked every time).
_PLAIN_NAMES_SEEN: set[str] = set()
MAX_NAMES_SEEN = 10_000


def values(
    given: object,
    what: str = "values",
    *,
    reserved: frozenset[str] = OWNED_NAMES,
    none_is_absent: bool = False,
    times: tuple[str, ...] = (),
) -> dict[str, object]:
    """A mapping of property names to stored values, at most 200 of them; no name in reserved (by default
    the names the library owns on entities and States; a record passes the names the API reserves).
    none_is_absent: a value None means absent, and its name (checked) is left out (a row's values).
    times: names whose value may also be a datetime, kept as it is for the caller to read as a time."""
    if given is None:
        return {}
    if type(given) is not dict:
        raise Refused(f"{what} must be a dict, not {sort_of(given)}")
    if len(given) > MAX_VALUES:
        raise Refused(f"{what} holds more than {MAX_VALUES} values")
    checked = {}
    for name_given, item in given.items():
        if type(name_given) is not str or name_given in reserved or name_given not in _PLAIN_NAMES_SEEN:
            property_name(name_given, "the name of a value", reserved=reserved)  # raises, saying why
            if len(_PLAIN_NAMES_SEEN) < MAX_NAMES_SEEN:
                _PLAIN_NAMES_SEEN.add(name_given)
        kind = type(item)
        # The common values checked here, each as scalar() would; anything else goes through value(). ASCII
        # text holds no surrogate, so only a NUL is looked for in it (a search of the pattern cost more).
        common = (
            (
                kind is str
                and len(item) <= MAX_TEXT
                and ("\x00" not in item if item.isascii() else not _UNSTORABLE.search(item))
            )
            or kind is bool
            or (kind is int and INT_RANGE[0] <= item <= INT_RANGE[1])
        )
        if common or kind is datetime and name_given in times:
            checked[name_given] = item
        elif item is not None or not none_is_absent:
            checked[name_given] = value(item, f"the value {name_given!r}")
    return checked


# One encoder for every measure: json.dumps() with arguments builds one a call (a third of a row's
# measure), and JSONEncoder.encode() builds the C encoder again each call (a third of what was left: 3.5
# against 2.5 µs a row). No check for cycles: a structure that holds itself is nested too deep, and
# refused so. Where the C encoder is missing, the same JSON from the Python one.
_MEASURE = json.JSONEncoder(ensure_ascii=False, default=str, check_circular=False)
_C_MEASURE = (
    None
    if json.encoder.c_make_encoder is None
    else json.encoder.c_make_encoder(
        None, str, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
)


def _json_length(whole: object) -> int:
    if _C_MEASURE is None:
        return len(_MEASURE.encode(whole))
    return len("".join(_C_MEASURE(whole, 0)))


def measured(whole: object, what: str = "a row") -> int:
    """The size of what is stored, in characters of its JSON; refused over 200,000."""
    try:
        size = _json_length(whole)
    except (TypeError, ValueError) as error:
        raise Refused(f"{what} cannot be read: {str(error)[:200]}") from None
    except RecursionError:
        raise Refused(f"{what} is nested too deep to read") from None
    except Exception as error:  # an object whose str() raises: hostile input is refused, not a crash
        raise Refused(f"{what} holds a {sort_of(error)} when read") from None
    if size > MAX_ROW:
        raise Refused(f"{what} is longer than {MAX_ROW:,} characters")
    return size


def kept(content: object) -> str:
    """What a refused write held, as ASCII JSON cut to 2,000 characters: storable whatever it held."""
    try:
        shown = json.dumps(content, ensure_ascii=True, default=repr, sort_keys=False)
    except Exception:  # whatever the content does when it is printed, the refusal is still kept
        try:
            shown = ascii(content)
        except Exception:
            shown = f"<{sort_of(content)} that cannot be shown>"
    return shown[:MAX_KEPT]


def whole(given: object, what: str, low: int, high: int) -> int:
    """Exactly an int from low to high (not a bool); else Refused: "<what> must be a whole number from
    <low> to <high>"."""
    if type(given) is not int or not low <= given <= high:
        raise Refused(f"{what} must be a whole number from {low} to {high}")
    return given


def lease(seconds: object) -> int:
    return whole(seconds, "lease", 1, MAX_LEASE)  # in seconds


def words(content: str) -> str:
    """The letters and digits of a text, case folded, one space between words: what the index reads.

    A combining mark stays in its word: in many scripts it is part of the letter.
    """
    if content.isascii():  # NFKC and casefold change no ASCII letter but the case: the same words, in C
        return " ".join(_ASCII_WORD.findall(content.lower()))
    out: list[str] = []
    current: list[str] = []
    # NFKC first and last: a letter and its accent written apart, or a ligature, read as one word.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", content).casefold())
    for char in folded:
        if char.isalnum() or (current and unicodedata.category(char)[0] == "M"):
            current.append(char)
        elif current:
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return " ".join(out)


def question(asked: object, distinct: bool = False) -> list[str]:
    """The words of a question: letters and digits only, at most 20 words of at most 50 characters.
    distinct: the first 20 different words (a word said again takes none of the 20 places)."""
    if type(asked) is not str:
        raise WrongType(f"a question must be text, not {sort_of(asked)}")
    found = words(asked[:MAX_QUESTION]).split()
    if distinct:
        return list(dict.fromkeys(word[:MAX_WORD] for word in found))[:MAX_QUESTION_WORDS]
    return [word[:MAX_WORD] for word in found[:MAX_QUESTION_WORDS]]


def record_values(given: object, reserved: frozenset[str], owner: str) -> dict:
    """The values of a record (an entry, a handoff, a lesson, a message), from a plain copy: a dict of
    property names (none of `reserved`, the record's own) to storable values, at most 200; a None value
    is left out. Refused otherwise."""
    if given is None:
        return {}
    if type(given) is not dict:
        raise Refused(f"values must be a dict, not {type(given).__name__}")
    if len(given) > MAX_VALUES:
        raise Refused(f"values holds more than {MAX_VALUES} values")
    checked = {}
    for named, item in given.items():
        if not PLAIN_NAME.match(named):
            raise Refused(f"the name of a value must be a property name: {printable(named)}")
        if named in reserved:
            raise Refused(f"the name {named!r} belongs to the {owner}")
        if item is not None:
            checked[named] = value(item, f"the value {named!r}")
    return checked
