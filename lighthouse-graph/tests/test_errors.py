"""The one family of exceptions: each class is also the built-in that a caller of the published API catches."""

from __future__ import annotations

import copy
import pickle
import re

import lighthouse
import pytest
from lighthouse import errors, values
from lighthouse.errors import LighthouseError, ReceiptMismatch, Refused, SchemaNotReady, TooSlow, WrongType
from redis.exceptions import RedisError, ResponseError

FAMILY = {
    "LighthouseError": (Exception,),
    "Refused": (LighthouseError, ValueError),
    "WrongType": (LighthouseError, TypeError),
    "SchemaNotReady": (LighthouseError, RuntimeError),
    "ReceiptMismatch": (LighthouseError, RuntimeError),
    "TooSlow": (LighthouseError, ResponseError),
    "TimeError": (Refused,),
    "EmbedderError": (Refused,),
    "RerankerError": (Refused,),
    "StepMismatch": (LighthouseError, RuntimeError),
    "ExtractorFailed": (LighthouseError, RuntimeError),
    "ExtractorUnavailable": (errors.ExtractorFailed,),
}
# Raised where they are met (clock, recall.vector, recall.rank, once), importable there and from errors.
NOT_EXPORTED = {
    "TimeError": "lighthouse.clock",
    "EmbedderError": "lighthouse.recall.vector",
    "RerankerError": "lighthouse.recall.rank",
    "StepMismatch": "lighthouse.once",
}


@pytest.mark.parametrize(("name", "bases"), sorted(FAMILY.items()))
def test_each_class_is_the_built_in_the_api_names(name, bases) -> None:
    found = getattr(errors, name)
    assert found.__bases__ == bases
    assert issubclass(found, Exception)
    if name != "LighthouseError":
        assert issubclass(found, LighthouseError)


def test_every_exception_of_the_library_is_of_the_family_and_drawn_in_its_tree() -> None:
    import importlib
    import pkgutil

    found = {}
    for module in pkgutil.walk_packages(lighthouse.__path__, "lighthouse."):
        for name, item in vars(importlib.import_module(module.name)).items():
            if (
                isinstance(item, type)
                and issubclass(item, BaseException)
                and item.__module__.startswith("lighthouse")
            ):
                found[name] = item
    public = {
        name for name in found if not name.startswith("_")
    }  # a private one is control flow, never raised out
    assert public == set(FAMILY)
    for name in FAMILY:
        assert re.search(rf"── {name}\b", errors.__doc__) or name == "LighthouseError", name
    for name, where in NOT_EXPORTED.items():
        assert getattr(importlib.import_module(where), name) is getattr(errors, name)


def test_the_family_is_exactly_these_classes() -> None:
    defined = {
        name
        for name, item in vars(errors).items()
        if isinstance(item, type) and issubclass(item, BaseException) and item.__module__ == errors.__name__
    }
    assert defined == set(FAMILY)


def test_a_caller_can_tell_a_bad_value_from_a_wrong_type() -> None:
    # The API keeps them apart: a bad value is a ValueError and never a TypeError, and the other way round.
    assert not issubclass(Refused, TypeError) and not issubclass(WrongType, ValueError)
    assert not issubclass(Refused, RuntimeError) and not issubclass(WrongType, RuntimeError)
    for runtime in (SchemaNotReady, ReceiptMismatch):
        assert not issubclass(runtime, ValueError | TypeError | ResponseError)
    assert issubclass(TooSlow, RedisError) and not issubclass(TooSlow, ValueError | TypeError | RuntimeError)


def test_refused_carries_the_status_of_its_receipt() -> None:
    assert Refused("why").reason == "invalid"
    assert Refused("why", "missing").reason == "missing"
    assert Refused("why", reason="failed").reason == "failed"
    assert str(Refused("why")) == "why"
    with pytest.raises(ValueError, match="why") as raised:
        raise Refused("why", "closed")
    assert raised.value.reason == "closed"


def test_a_copy_or_a_pickle_of_refused_keeps_its_reason() -> None:
    for again in (
        copy.copy(Refused("gone", "unknown")),
        pickle.loads(pickle.dumps(Refused("gone", "unknown"))),
    ):
        assert type(again) is Refused and str(again) == "gone" and again.reason == "unknown"


@pytest.mark.parametrize(
    "name", ["WrongType", "SchemaNotReady", "ReceiptMismatch", "TooSlow", "StepMismatch"]
)
def test_the_others_take_a_message(name) -> None:
    raised = getattr(errors, name)("schema not ready: Device.serial")
    assert str(raised) == "schema not ready: Device.serial"
    assert not hasattr(raised, "reason")


def test_lighthouse_exports_the_family_and_values_gives_the_two_of_the_checks() -> None:
    for name in set(FAMILY) - set(NOT_EXPORTED):
        assert name in lighthouse.__all__
        assert getattr(lighthouse, name) is getattr(errors, name)
    assert values.Refused is Refused and values.WrongType is WrongType


def test_the_checks_raise_the_family() -> None:
    with pytest.raises(Refused):
        values.name("", "the agent")
    with pytest.raises(WrongType):
        values.question(5)
    with pytest.raises(WrongType):
        lighthouse.stamp(5)
    with pytest.raises(Refused):
        lighthouse.stamp("yesterday")


def test_an_extractor_s_failure_carries_its_reason_and_asks_through_a_copy_or_a_pickle() -> None:
    from lighthouse import ExtractorFailed, ExtractorUnavailable

    assert (ExtractorFailed("no").reason, ExtractorFailed("no").asks) == ("failed", 1)
    for made in (ExtractorFailed("500", "server", 3), ExtractorUnavailable("429", "rate_limited", 2)):
        for again in (copy.copy(made), pickle.loads(pickle.dumps(made))):
            assert type(again) is type(made) and str(again) == str(made)
            assert (again.reason, again.asks) == (made.reason, made.asks)
    assert issubclass(ExtractorUnavailable, RuntimeError) and not issubclass(ExtractorFailed, ValueError)
