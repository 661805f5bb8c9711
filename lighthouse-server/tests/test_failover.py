"""A shard's master killed (kill -9) while 4 clients a tenant write (remember, note, record, say) through
a serve, 5 rounds: after each the killed node starts again and rejoins as a replica, so the next round
kills the new master. Two tenants on that shard: one served with wait_replicas = 1, one without. With
waiting, no write a replica confirmed is lost; for both, every refused write, sent again with its
Idempotency-Key, lands once. Without waiting, what is lost is counted (the README's "When one machine is
not enough" says what may be). The rounds are bench/failover.py's (its Round and counted()), on a cluster
of this test's own with a 4 s node timeout, so that a round takes seconds, not the 15 s default's 20."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lighthouse_server import keys, local_cluster
from service_process import Lighthouse

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import failover  # noqa: E402 - bench/ is not a package: its folder goes on the path first

ROUNDS = 5
NODE_TIMEOUT_MS = 4_000


@pytest.fixture(scope="module")
def own_cluster(tmp_path_factory):
    """3 masters + 3 replicas that only this test uses (and kills), with a short node timeout."""
    cluster = local_cluster.start(3, 1, tmp_path_factory.mktemp("failover"), node_timeout_ms=NODE_TIMEOUT_MS)
    yield cluster
    cluster.stop()


def test_masters_killed_under_writes_lose_no_write_a_replica_confirmed(own_cluster, serves, tmp_path):
    db = failover.cluster_client(own_cluster)
    keys.ensure_service_schema(db)
    names = failover.two_tenants_of_one_shard(db)
    groups = {}
    for name, wait in zip(names, (1, 0), strict=True):
        (tmp_path / name).mkdir()
        serve = Lighthouse(tmp_path / name / "data", **failover.serve_settings(own_cluster.seeds, wait))
        serves.append(serve.start())
        groups[name] = (serve.url, failover.prepared(db, serve.url, name))
    slot = failover.slot_of(own_cluster, names[0])
    rounds = []
    for number in range(1, ROUNDS + 1):
        killed = failover.master_of(own_cluster, slot)
        game = failover.Round(number)
        game.run(own_cluster, groups, slot)
        rounds.append(game)
        assert game.errors == [], game.errors  # every write was answered in the end, none refused for good
        assert game.to_promotion is not None and game.to_accepted is not None
        assert failover.master_of(own_cluster, slot) is not killed  # the next round kills another node
        print(f"round {number}: {game.said()}")
    said = failover.counted(db, groups, rounds)
    waiting, other = (said[name] for name in names)
    for one in (waiting, other):
        assert one["duplicated"] == [], one  # a write sent again with its key is stored once
        assert one["refused"] > 0  # the failovers refused some: sent again, they landed (none lost below)
    assert waiting["confirmed"] and set(waiting["lost"]).isdisjoint(waiting["confirmed"]), waiting
    # Every write of this tenant acknowledged without a replica's confirmation (0/1) is said so.
    url = groups[names[0]][0]
    headers = {
        text: said
        for game in rounds
        for one in game.writers
        if one.url == url
        for text, said in one.acknowledged.items()
    }
    assert all(headers[text] == "0/1" for text in waiting["lost"]), waiting
    assert not other["confirmed"]  # without waiting no answer says "1/1"
    print(
        f"failover, {ROUNDS} rounds: wait_replicas = 1: {waiting['acknowledged']} acknowledged, "
        f"{len(waiting['confirmed'])} confirmed, {len(waiting['lost'])} lost; wait_replicas = 0: "
        f"{other['acknowledged']} acknowledged, {len(other['lost'])} lost {other['lost']}"
    )
