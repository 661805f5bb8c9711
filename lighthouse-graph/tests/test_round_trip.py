"""round_trip.py: a thread's commands go on one connection it keeps from the client's pool, back to the pool
when the thread ends; a lost connection is retried the client's way, an interrupted one never leaves a
reply to be read by the next command, and a client that is not plain goes the client's way."""

from __future__ import annotations

import gc
import threading

import pytest
from falkordb import FalkorDB
from lighthouse import round_trip
from lighthouse.wire import read_rows, written_rows
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError


def _kept_connection(graph):
    pool = graph.execute_command.__self__.connection_pool
    return round_trip._thread.kept[id(pool)].connection


def test_a_thread_sends_every_command_on_the_connection_it_keeps(graph):
    written_rows(graph, "CREATE (:Thing {n: 1})")
    kept = _kept_connection(graph)
    for n in range(5):
        assert read_rows(graph, "MATCH (t:Thing) RETURN t.n + $n", {"n": n}) == [[1 + n]]
        assert _kept_connection(graph) is kept
    assert round_trip.sent(graph, "PING") in (True, "PONG", b"PONG")


def test_the_connection_goes_back_to_the_pool_when_the_thread_ends(db):
    where = db.connection.get_connection_kwargs()
    client = FalkorDB(host=where["host"], port=where["port"], password=where.get("password"))
    graph = client.select_graph("round_trip_unused")
    pool = client.connection.connection_pool
    taken = []

    def reads() -> None:
        assert round_trip.sent(graph, "PING")
        taken.append(_kept_connection(graph))
        assert taken[0] in pool._in_use_connections

    worker = threading.Thread(target=reads)
    worker.start()
    worker.join()
    gc.collect()
    assert taken and taken[0] not in pool._in_use_connections
    assert taken[0] in pool._available_connections
    pool.disconnect()


def test_a_connection_the_server_closed_is_retried_the_clients_way(graph):
    written_rows(graph, "CREATE (:Thing {n: 1})")
    kept = _kept_connection(graph)
    kept.send_command("CLIENT", "ID")
    own_id = kept.read_response()
    assert graph.execute_command("CLIENT", "KILL", "ID", own_id) == 1
    assert read_rows(graph, "MATCH (t:Thing) RETURN t.n") == [[1]]  # answered all the same
    assert read_rows(graph, "MATCH (t:Thing) RETURN t.n") == [[1]]


def test_a_write_whose_reply_is_lost_is_sent_no_more_often_than_the_clients_retry_policy(graph, monkeypatch):
    written_rows(graph, "CREATE (:Thing {n: 0})")
    kept = _kept_connection(graph)
    real = kept.read_response

    def lost(*args, **kwargs):
        real(*args, **kwargs)  # the write went and was done; its reply never arrives
        raise RedisConnectionError("lost after the command went")

    monkeypatch.setattr(kept, "read_response", lost)
    with pytest.raises(RedisConnectionError):
        written_rows(graph, "CREATE (:Thing {n: 1})")
    monkeypatch.setattr(kept, "read_response", real)
    sends = 1 + kept.retry.get_retries()  # what the client's own execute_command() would send at most
    assert read_rows(graph, "MATCH (t:Thing {n: 1}) RETURN count(t)") == [[sends]]


def test_an_interrupted_command_leaves_no_reply_for_the_next(graph, monkeypatch):
    written_rows(graph, "CREATE (:Thing {n: 1})")
    kept = _kept_connection(graph)
    real = kept.read_response

    def stopped(*args, **kwargs):
        monkeypatch.setattr(kept, "read_response", real)
        raise KeyboardInterrupt  # after the command went, before its reply was read

    monkeypatch.setattr(kept, "read_response", stopped)
    with pytest.raises(KeyboardInterrupt):
        read_rows(graph, "RETURN 'first'")
    assert read_rows(graph, "RETURN 'second'") == [["second"]]  # not the first command's reply


def test_an_error_reply_raises_and_the_connection_goes_on(graph):
    written_rows(graph, "CREATE (:Thing {n: 1})")
    kept = _kept_connection(graph)
    with pytest.raises(ResponseError):
        read_rows(graph, "MATCH (t:Thing) RETURN nosuchfunction(t)")
    assert read_rows(graph, "MATCH (t:Thing) RETURN t.n") == [[1]]
    assert _kept_connection(graph) is kept


def test_a_thread_keeps_connections_of_a_few_pools_at_most(db):
    where = db.connection.get_connection_kwargs()
    clients = [
        FalkorDB(host=where["host"], port=where["port"], password=where.get("password"))
        for _ in range(round_trip.KEPT_POOLS + 2)
    ]
    for client in clients:
        assert round_trip.sent(client.select_graph("round_trip_unused"), "PING")
    pools = {id(client.connection.connection_pool) for client in clients}
    assert len(pools & set(round_trip._thread.kept)) == round_trip.KEPT_POOLS
    first = clients[0].connection.connection_pool
    assert not first._in_use_connections  # the oldest went back to its pool
    for client in clients:
        client.connection.connection_pool.disconnect()


def test_a_client_that_is_not_plain_goes_the_clients_way(db):
    where = db.connection.get_connection_kwargs()
    single = Redis(host=where["host"], port=where["port"], single_connection_client=True)
    assert round_trip._plain_pool(single) is None
    assert round_trip._plain_pool(object()) is None
    assert round_trip._plain_pool(db.connection) is db.connection.connection_pool

    class Counted:  # a stand-in with an execute_command of its own is asked by it
        def __init__(self):
            self.asked = []

        def execute_command(self, *command):
            self.asked.append(command)
            return "answered"

    counted = Counted()
    assert round_trip.sent(counted, "PING") == "answered" and counted.asked == [("PING",)]
    single.close()
