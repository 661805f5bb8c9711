"""problems: one error shape, and which exception becomes which code."""

from __future__ import annotations

import pytest
from lighthouse import Refused, TooSlow, WrongType
from lighthouse_server.embedders import EmbedderUnavailable, EmbeddingsFailed
from lighthouse_server.problems import CODES, Problem, problem_of
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
