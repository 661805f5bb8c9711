"""The per-key, per-minute limit of heavy calls."""

from __future__ import annotations

import pytest
from lighthouse_server import limits
from lighthouse_server.limits import PerMinute
from lighthouse_server.problems import Problem


def test_the_limit_counts_per_key_and_says_when_to_come_back(monkeypatch):
    moment = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: moment[0])
    limit = PerMinute(2)
    limit.take("a", "groups")
    limit.take("a", "groups")
    limit.take("b", "groups")
    with pytest.raises(Problem) as refused:
        limit.take("a", "groups")
    assert refused.value.code == "rate_limited" and refused.value.retry_after == 60
    moment[0] += 30
    with pytest.raises(Problem) as refused:
        limit.take("a", "between")
    assert refused.value.retry_after == 30 and "between" in refused.value.message
    moment[0] += 30
    limit.take("a", "groups")  # the first two calls left the window
