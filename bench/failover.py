"""Failover under writers: `uv run python bench/run.py failover [--rounds N] [--node-timeout-ms MS]`.

Starts a local cluster of 3 masters and 3 replicas (local_cluster.py) in a temporary folder, two tenants
on one shard and a `lighthouse serve` for each: one with wait_replicas = 1 (wait_ms 1000), one without.
4 clients a tenant write (remember, note, record, say), each write with an Idempotency-Key of its own,
a refused one (503 with Retry-After, or no answer) sent again with the same key until it is answered.
Each round kills (kill -9) the master of that shard while they write, sees the replica promoted, lets
each client have one more write acknowledged, then starts the killed node again (it rejoins as the new
master's replica) and waits until the cluster is whole: the next round kills the new master. At the
end every acknowledged write is counted in the graphs.

Prints, per round, the seconds from the kill to the promotion (a live node says another master holds
the slot) and to the first write accepted again (the first 200 to a request sent after the kill); then,
per tenant, what was acknowledged, confirmed by a replica (Lighthouse-Replicated 1/1), lost (acknowledged,
not stored), duplicated (stored twice) and refused then sent again. Exit code 1 when a write confirmed
by a replica is lost, one is stored twice, or a write is not answered in GIVE_UP_S: the figures would
mean nothing. lighthouse-server/tests/test_failover.py runs the same rounds (prepared(), Round, counted()).
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from falkordb import FalkorDB
from lighthouse import tenant
from lighthouse_server import keys, local_cluster
from lighthouse_server.topology import without_resends
from processes import Serve
from redis import exceptions as replies

WRITERS = ("remember", "note", "record", "say")
GIVE_UP_S = 120.0  # one write refused this long: the service never came back
RETRY_S = 0.2  # between tries of a refused write
# A try not answered in this long is sent again with its key (as a client that gives up would): some
# requests that reach serve just after a promotion wait there a minute and more.
ANSWER_S = 15.0
WAIT_MS = "1000"  # how long a write waits for its replica under wait_replicas = 1


def body(operation: str, text: str) -> dict:
    """The arguments of one write whose text (a key, a note, a record, a message) names it."""
    return {
        "remember": {
            "kind": "Device",
            "rows": [{"key": text, "t": "2026-01-01T00:00:00Z", "values": {"n": 1}}],
        },
        "note": {"text": text, "source": "agent"},
        "record": {"episode_id": "ep", "entry_type": "observation", "values": {"text": text}},
        "say": {"user": "u", "session_id": "s", "role": "user", "text": text},
    }[operation]


# The text of each stored write of an operation: one read a tenant and operation counts them all.
STORED = {
    "remember": "MATCH (s:State) RETURN s.key",
    "note": "MATCH (e:Entry {type: 'note'}) RETURN e.v_text",
    "record": "MATCH (e:Entry {episode: 'ep'}) RETURN e.v_text",
    "say": "MATCH (m:Message) RETURN m.text",
}


def serve_settings(seeds: list[str], wait_replicas: int) -> dict[str, str]:
    return {"falkordb_cluster": ",".join(seeds), "wait_replicas": str(wait_replicas), "wait_ms": WAIT_MS}


def prepared(db, url: str, name: str) -> str:
    """The tenant's key (every scope), its kind declared, its episode open and each operation's first
    idempotent call made (the first compiles once()'s query: seconds on a busy machine, one at a time
    here so that no pile of them stalls the master past the node timeout)."""
    key = keys.create(db, name, "agent", list(keys.SCOPES))["key"]
    headers = {"Authorization": f"Bearer {key}"}
    calls = [("declare_kinds", {"kinds": [{"label": "Device", "key": "serial"}]}, {})]
    calls.append(("open_episode", {"episode_id": "ep"}, {}))
    calls += [(one, body(one, f"{one}-first"), {"Idempotency-Key": f"{one}-first"}) for one in WRITERS]
    for operation, arguments, more in calls:
        answer = httpx.post(f"{url}/v1/{operation}", json=arguments, headers={**headers, **more}, timeout=120)
        if answer.status_code != 200:
            raise RuntimeError(f"{name} {operation}: {answer.status_code} {answer.text[:300]}")
    return key


class Writer(threading.Thread):
    """One client: writes one operation again and again, each write with its own Idempotency-Key, a
    refused one sent again with the same key until it is answered; once `enough` is set it stops after
    `after` more acknowledged writes."""

    def __init__(self, url: str, key: str, operation: str, tag: str, enough: threading.Event, after=1):
        super().__init__(daemon=True)
        self.url, self.key, self.operation, self.tag = url, key, operation, tag
        self.enough, self.after = enough, after
        self.acknowledged: dict[str, str] = {}  # text -> its Lighthouse-Replicated header ("" without)
        self.refused = 0  # tries answered 503 (or not at all), each sent again
        self.why: collections.Counter = collections.Counter()  # what the refusals said
        self.accepted: list[tuple[float, float]] = []  # (sent, answered) of each 200, monotonic
        self.errors: list[str] = []

    def run(self) -> None:
        number, after = 0, 0
        with httpx.Client(timeout=ANSWER_S) as client:
            while after < self.after and not self.errors:
                number += 1
                text = f"{self.operation}-{self.tag}-{number}"
                counts = self.enough.is_set()
                replicated = self._write(client, text)
                if replicated is None:
                    return
                self.acknowledged[text] = replicated
                after += counts

    def _write(self, client: httpx.Client, text: str) -> str | None:
        headers = {"Authorization": f"Bearer {self.key}", "Idempotency-Key": text}
        deadline = time.monotonic() + GIVE_UP_S
        while time.monotonic() < deadline:
            sent = time.monotonic()
            try:
                answer = client.post(
                    f"{self.url}/v1/{self.operation}", json=body(self.operation, text), headers=headers
                )
            except httpx.HTTPError as error:
                self.refused += 1
                self.why[type(error).__name__] += 1
                time.sleep(RETRY_S)
                continue
            if answer.status_code == 200:
                self.accepted.append((sent, time.monotonic()))
                return answer.headers.get("Lighthouse-Replicated", "")
            if answer.status_code == 503 and answer.headers.get("Retry-After"):
                self.refused += 1
                self.why[answer.json()["error"]["message"][:100]] += 1
                time.sleep(RETRY_S)
                continue
            self.errors.append(f"{text}: {answer.status_code} {answer.text[:300]}")
            return None
        self.errors.append(f"{text}: still refused after {GIVE_UP_S:g} s")
        return None


def master_of(cluster, slot: int):
    """The node a live node says is the master of the slot (the first that answers), or None."""
    for node in cluster.nodes:
        if not node.alive:
            continue
        try:
            with node.connection(1.0) as connection:
                for first, last, master, *_replicas in connection.execute_command("CLUSTER", "SLOTS"):
                    if first <= slot <= last:
                        return next((one for one in cluster.nodes if one.port == int(master[1])), None)
        except replies.RedisError:
            continue
    return None


def slot_of(cluster, name: str) -> int:
    live = next(node for node in cluster.nodes if node.alive)
    with live.connection() as connection:
        return int(connection.execute_command("CLUSTER", "KEYSLOT", f"tenant:{name}"))


@dataclass
class Round:
    """One kill of the shard's master under the writers of every tenant (groups: name -> (url, key))."""

    number: int
    writers: list[Writer] = field(default_factory=list)
    to_promotion: float | None = None
    to_accepted: float | None = None

    def run(self, cluster, groups: dict[str, tuple[str, str]], slot: int, wait: float = 120.0) -> None:
        enough = threading.Event()
        self.writers = [
            Writer(url, key, operation, f"{self.number}", enough)
            for url, key in groups.values()
            for operation in WRITERS
        ]
        for writer in self.writers:
            writer.start()
        deadline = time.monotonic() + wait
        while min(len(one.acknowledged) for one in self.writers) < 2 and time.monotonic() < deadline:
            if any(one.errors for one in self.writers):
                break
            time.sleep(0.05)
        master = master_of(cluster, slot)
        killed = time.monotonic()
        os.kill(master.pid, signal.SIGKILL)
        master.process.wait()
        while time.monotonic() < deadline:
            promoted = master_of(cluster, slot)
            if promoted is not None and promoted is not master:
                self.to_promotion = time.monotonic() - killed
                break
            time.sleep(0.05)
        enough.set()  # each writer stops after one more acknowledged write
        for writer in self.writers:
            writer.join(timeout=GIVE_UP_S + 30)
        after = [done for one in self.writers for sent, done in one.accepted if sent > killed]
        self.to_accepted = min(after) - killed if after else None
        cluster.start_node(master)  # it rejoins as the replica of the one that took its place
        cluster.wait_ok(wait)

    def said(self) -> str:
        promoted, accepted = (
            "never" if took is None else f"{took:.1f} s" for took in (self.to_promotion, self.to_accepted)
        )
        why = collections.Counter()
        for writer in self.writers:
            why.update(writer.why)
        said = "; ".join(f"{count} {what}" for what, count in why.most_common(3))
        slowest = max((done - sent for one in self.writers for sent, done in one.accepted), default=0.0)
        return (
            f"promotion {promoted} after the kill, writes accepted again {accepted} after it, the slowest "
            f"answered try {slowest:.1f} s, {why['ReadTimeout']} tries unanswered in {ANSWER_S:g} s "
            f"(refused: {said})"
        )

    @property
    def errors(self) -> list[str]:
        return [error for one in self.writers for error in one.errors]


def counted(db, groups: dict[str, tuple[str, str]], rounds: list[Round]) -> dict[str, dict]:
    """Per tenant: acknowledged, confirmed (1/1), lost and duplicated (lists of texts), refused tries."""
    said = {}
    for name, (url, _key) in groups.items():
        graph = tenant(db, name)
        stored = collections.Counter()
        for query in STORED.values():
            stored.update(row[0] for row in _read(graph, query))
        mine = [one for game in rounds for one in game.writers if one.url == url]
        acknowledged = {text: header for one in mine for text, header in one.acknowledged.items()}
        said[name] = {
            "acknowledged": len(acknowledged),
            "confirmed": sorted(text for text, header in acknowledged.items() if header == "1/1"),
            "lost": sorted(text for text in acknowledged if stored[text] == 0),
            "duplicated": sorted(text for text, count in stored.items() if count > 1),
            "refused": sum(one.refused for one in mine),
        }
    return said


def _read(graph, query: str) -> list:
    """A read asked again while the client learns the new master."""
    for _attempt in range(20):
        try:
            return graph.ro_query(query).result_set
        except replies.ConnectionError:
            time.sleep(0.5)
    return graph.ro_query(query).result_set


def two_tenants_of_one_shard(db) -> tuple[str, str]:
    """Two tenant ids whose graphs hash to one shard."""
    first = f"f{os.urandom(5).hex()}"
    shard = db.connection.get_node_from_key(f"tenant:{first}").name
    for _ in range(10_000):
        other = f"f{os.urandom(5).hex()}"
        if db.connection.get_node_from_key(f"tenant:{other}").name == shard:
            return first, other
    raise RuntimeError("no second tenant on the shard of the first")


def cluster_client(cluster) -> FalkorDB:
    """A client of the cluster through its first seed (it finds every node), sending nothing twice."""
    host, port = cluster.seeds[0].split(":")
    return without_resends(FalkorDB(host=host, port=int(port)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="kills of the shard's master (default 3)")
    parser.add_argument(
        "--node-timeout-ms",
        type=int,
        default=local_cluster.NODE_TIMEOUT_MS,
        help=f"the cluster's node timeout (default {local_cluster.NODE_TIMEOUT_MS}, local_cluster's)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= 50 or not 1000 <= args.node_timeout_ms <= 600_000:
        parser.error("--rounds from 1 to 50, --node-timeout-ms from 1000 to 600000")
    with tempfile.TemporaryDirectory(prefix="lighthouse-bench-failover-") as where:
        cluster = local_cluster.start(3, 1, Path(where) / "cluster", node_timeout_ms=args.node_timeout_ms)
        serves = []
        try:
            db = cluster_client(cluster)
            keys.ensure_service_schema(db)
            names = two_tenants_of_one_shard(db)
            groups = {}
            for name, wait in zip(names, (1, 0), strict=True):
                (Path(where) / name).mkdir()
                serve = Serve(Path(where) / name / "data", **serve_settings(cluster.seeds, wait))
                serves.append(serve.start())
                groups[name] = (serve.url, prepared(db, serve.url, name))
            slot = slot_of(cluster, names[0])
            print(f"3 masters + 3 replicas, node timeout {args.node_timeout_ms} ms; {args.rounds} rounds")
            rounds = []
            for number in range(1, args.rounds + 1):
                game = Round(number)
                game.run(cluster, groups, slot)
                rounds.append(game)
                if game.errors:
                    print(f"WRONG WORK: {game.errors[:3]}", file=sys.stderr)
                    return 1
                print(f"round {number}: {game.said()}", flush=True)
            return report(counted(db, groups, rounds), names)
        finally:
            for serve in serves:
                serve.stop()
            cluster.stop()


def report(said: dict[str, dict], names: tuple[str, str]) -> int:
    wrong = 0
    for name, label in zip(names, ("wait_replicas = 1", "wait_replicas = 0"), strict=True):
        one = said[name]
        lost_confirmed = sorted(set(one["lost"]) & set(one["confirmed"]))
        print(
            f"{label}: {one['acknowledged']} acknowledged, {len(one['confirmed'])} confirmed by a replica, "
            f"{len(one['lost'])} lost {one['lost'][:10]}, {len(one['duplicated'])} duplicated, "
            f"{one['refused']} refused tries sent again"
        )
        if lost_confirmed or one["duplicated"]:
            print(
                f"WRONG WORK: lost though confirmed {lost_confirmed}, twice {one['duplicated']}",
                file=sys.stderr,
            )
            wrong = 1
    return wrong


if __name__ == "__main__":
    sys.exit(main())
