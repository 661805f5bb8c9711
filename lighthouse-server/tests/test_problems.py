"""problems: one error shape, and which exception becomes which code."""

from __future__ import annotations

import copy
import importlib
import pickle
import pkgutil
import re
from pathlib import Path

import lighthouse_server
import pytest
from lighthouse import Refused, TooSlow, WrongType
from lighthouse_server import problems
from lighthouse_server.embedders import EmbedderUnavailable, EmbeddingsFailed
from lighthouse_server.problems import CODES, FOREIGN, InvalidArgument, NotFound, Problem, problem_of
from redis.exceptions import ConnectionError as DatabaseDown
from redis.exceptions import ResponseError


def test_the_codes_and_their_statuses_are_pinned() -> None:
    assert CODES == {
        "invalid_argument": 400,
        "invalid_body": 422,
        "unauthorized": 401,
        "forbidden": 403,
        "not_found": 404,
        "method_not_allowed": 405,
        "body_timeout": 408,
        "body_too_large": 413,
        "rate_limited": 429,
        "database_error": 500,
        "internal": 500,
        "database_unavailable": 503,
        "model_unavailable": 503,
        "too_slow": 504,
    }


def test_the_shape() -> None:
    assert Problem("not_found", "no kind 'Boat'").body() == {
        "error": {"code": "not_found", "status": 404, "message": "no kind 'Boat'"}
    }


def test_a_code_that_is_not_in_the_table_is_a_bug() -> None:
    with pytest.raises(ValueError, match="no problem code"):
        Problem("teapot", "short and stout")


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (Refused("by must be text"), "invalid_argument"),
        (WrongType("kinds must be a list of Kind"), "invalid_argument"),
        (TooSlow("stopped"), "too_slow"),
        (ResponseError("Query timed out"), "too_slow"),
        (ResponseError("Invalid input"), "database_error"),
        (ResponseError("graph.RO_QUERY is to be executed only on read-only queries"), "invalid_argument"),
        (DatabaseDown("refused"), "database_unavailable"),
        (EmbeddingsFailed("the embeddings endpoint gave 502"), "model_unavailable"),
        (EmbedderUnavailable("the embedder extra is not installed"), "model_unavailable"),
        (KeyError("x"), "internal"),
        (UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"), "invalid_argument"),
        (RecursionError("maximum recursion depth exceeded"), "invalid_argument"),
        (ResponseError("Failed to parse query parameter 'key' value"), "invalid_argument"),
    ],
)
def test_each_exception_becomes_its_code(error: Exception, code: str) -> None:
    assert problem_of(error).code == code


def test_an_internal_error_does_not_show_its_text() -> None:
    assert "secret" not in problem_of(RuntimeError("secret path /etc")).message


# Raised and caught inside the worker's loop (the mark of a failed ask of the model), never said as an answer.
CAUGHT_WHERE_RAISED = {"ModelFailure"}


def _exceptions_of_the_service() -> dict[str, type]:
    found = {}
    for module in pkgutil.walk_packages(lighthouse_server.__path__, "lighthouse_server."):
        if module.name.endswith("__main__"):  # it runs the command line
            continue
        if module.name.startswith("lighthouse_server.client"):  # the other side of the wire: its errors
            continue  # carry the code the service answered with

        for name, item in vars(importlib.import_module(module.name)).items():
            if (
                isinstance(item, type)
                and issubclass(item, BaseException)
                and item.__module__.startswith("lighthouse_server")
            ):
                found[f"{item.__module__}.{name}"] = item
    return found


def test_every_exception_of_the_service_is_a_problem_with_its_code_and_status_on_its_class() -> None:
    found = _exceptions_of_the_service()
    assert len(found) > 20  # the classes of the codes and the modules' own
    for name, cls in found.items():
        if cls.__name__ in CAUGHT_WHERE_RAISED:
            continue
        assert issubclass(cls, Problem), name
        assert CODES[cls.code] == cls.status, name
        assert cls.exit_code in (1, 2), name
    codes = {cls.code for cls in found.values() if issubclass(cls, Problem)}
    assert codes == set(CODES)  # each code has its class
    for cls in {cls for cls in found.values() if issubclass(cls, Problem) and "code" in vars(cls)} - {
        Problem
    }:
        # the tree at the top of problems.py draws it: its name, code and status on one line
        assert re.search(rf"── {cls.__name__} +{cls.code} +{cls.status}\b", problems.__doc__), cls


def test_the_readme_lists_exactly_the_codes_and_their_statuses() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    sentence = " ".join(readme.split("with stable codes:", 1)[1].split(". A write sent again", 1)[0].split())
    listed = {}
    for first, second, status in re.findall(r"`(\w+)`(?: and `(\w+)`)? (\d{3})", sentence):
        listed |= {code: int(status) for code in (first, second) if code}
    assert listed == CODES


@pytest.mark.parametrize(
    "message", ["", "timed out", "read-only", "empty key", "failed to parse query parameter"]
)
def test_a_message_does_not_change_a_code(message) -> None:
    for cls in {cls for cls in _exceptions_of_the_service().values() if issubclass(cls, Problem)} - {Problem}:
        raised = cls(message)
        assert (raised.code, raised.status, raised.message) == (cls.code, cls.status, message)
        assert problem_of(raised) is raised
        assert Problem(cls.code, message).code == cls.code


def test_a_code_names_its_class_and_a_copy_keeps_it() -> None:
    found = Problem("not_found", "no kind 'Boat'")
    assert type(found) is NotFound and found.status == 404 and str(found) == "no kind 'Boat'"
    waiting = Problem("database_unavailable", "down", retry_after=7)
    assert waiting.retry_after == 7 and Problem("database_unavailable", "down").retry_after == 1
    for again in (copy.copy(waiting), pickle.loads(pickle.dumps(waiting))):
        assert type(again) is type(waiting) and again.message == "down" and again.retry_after == 7


def test_the_library_and_python_meet_the_codes_through_one_table() -> None:
    assert problem_of(InvalidArgument("given")).code == "invalid_argument"
    assert all(isinstance(cls, type) and issubclass(cls, BaseException) for cls in FOREIGN)
    # TooSlow is a ResponseError too: its own class is found first, whatever it says.
    assert problem_of(TooSlow("a database error said in other words")).code == "too_slow"
    assert problem_of(ResponseError("Invalid graph operation on empty key")).code == "not_found"
    assert problems.DATABASE_REPLIES  # the one place where the database's words are read


def test_the_command_lines_exit_code_is_the_class_of_what_was_raised() -> None:
    from lighthouse_server.command import COMMAND_LINE
    from lighthouse_server.embedded import ServerError
    from lighthouse_server.settings import SettingsError

    exits = {
        ValueError("a bad --since"): 2,  # at the command line, what was given
        TypeError("rows must be a list"): 2,
        Refused("by must be text"): 2,
        ServerError("there is no data directory at /x"): 2,
        SettingsError("port must be a whole number"): 2,
        Problem("invalid_body", "not an object"): 2,
        Problem("not_found", "no kind 'Boat'"): 2,
        DatabaseDown("refused"): 1,
        KeyError("x"): 1,
    }
    for error, code in exits.items():
        assert problem_of(error, COMMAND_LINE).exit_code == code, error
    assert problem_of(ValueError("x")).code == "internal"  # in a request it is the service's fault
