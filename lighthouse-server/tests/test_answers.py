"""Idempotency keys: the first answer kept in the tenant's graph, given again for the same call."""

from __future__ import annotations

import pytest
from lighthouse_server.answers import Answers, checked, fingerprint, held_key
from lighthouse_server.problems import Problem
from lighthouse_server.reading import rows


def test_an_answer_is_kept_and_found_for_the_same_call_only(graph):
    answers = Answers()
    ident = answers.ident("key1", "retry-7")
    print_ = fingerprint("say", {"text": "hi"})
    assert answers.found(graph, ident, "say", print_) == (False, None)  # a graph nothing was written to
    answers.keep(graph, ident, "say", print_, {"id": "s", "seq": 1})
    assert answers.found(graph, ident, "say", print_) == (True, {"id": "s", "seq": 1})
    answers.keep(graph, ident, "say", print_, {"id": "s", "seq": 2})  # the first answer stays
    assert answers.found(graph, ident, "say", print_) == (True, {"id": "s", "seq": 1})
    with pytest.raises(Problem, match="another call"):
        answers.found(graph, ident, "say", fingerprint("say", {"text": "bye"}))
    assert answers.found(graph, answers.ident("key2", "retry-7"), "say", print_) == (False, None)


@pytest.mark.parametrize("given", ["", "x" * 201, "line\nbreak", 7, None])
def test_a_bad_idempotency_key_is_refused(given):
    with pytest.raises(Problem):
        checked(given)


def test_only_an_answer_that_settled_is_kept():
    from lighthouse_server.answers import settled

    assert settled([{"key": "a", "status": "created"}, {"key": "b", "status": "invalid", "reason": "r"}])
    assert settled({"id": "s", "seq": 1, "status": "said"}) and settled(True) and settled(None)
    assert not settled([{"key": "a", "status": "created"}, {"key": "b", "status": "failed", "reason": "r"}])
    assert not settled({"key": "a", "status": "busy", "reason": "others wrote"})


def test_a_held_idempotency_key_stays_held_however_many_others_come_and_go(graph):
    import threading

    answers = Answers()
    inside, release, second_in = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with answers.held(graph, "k\x1fretry"):
            inside.set()
            release.wait(10)

    def second() -> None:
        with answers.held(graph, "k\x1fretry"):
            second_in.set()

    holder = threading.Thread(target=first)
    holder.start()
    inside.wait(10)
    for number in range(10_002):  # more keys than any bound of the table of locks
        with answers.held(graph, f"k\x1fother-{number}"):
            pass
    waiter = threading.Thread(target=second)
    waiter.start()
    assert not second_in.wait(0.3)  # the same key waits for the call that holds it
    release.set()
    assert second_in.wait(10)
    holder.join(10)
    waiter.join(10)
    assert not answers._locks  # nothing kept once every call left


def test_two_processes_take_turns_with_one_idempotency_key(graph):
    # Two Answers are two processes on one database (serve and a stdio mcp): each has its own locks, so
    # only the key on the server keeps the second call out while the first runs.
    import threading

    serve, stdio = Answers(), Answers()
    inside, release, second_in = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with serve.held(graph, "k\x1fretry"):
            inside.set()
            release.wait(10)

    def second() -> None:
        with stdio.held(graph, "k\x1fretry"):
            second_in.set()

    holder = threading.Thread(target=first)
    holder.start()
    assert inside.wait(10)
    waiter = threading.Thread(target=second)
    waiter.start()
    assert not second_in.wait(0.3)
    with stdio.held(graph, "k\x1fanother key"):  # another key is not held up
        pass
    release.set()
    assert second_in.wait(10)
    holder.join(10)
    waiter.join(10)
    held = held_key(graph.name, "k\x1fretry")
    assert graph.execute_command("EXISTS", held) == 0  # nothing left held


def _hold_name(graph, ident: str) -> str:
    return held_key(graph.name, ident)


def test_a_hold_whose_process_was_killed_ends_within_its_lease(graph):
    """A process killed with SIGKILL while it holds a key: its hold runs out within HOLD_MS, not a minute."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from lighthouse_server.answers import HOLD_MS

    holding = (
        "import os, sys, time\n"
        "from falkordb import FalkorDB\n"
        "from lighthouse_server.answers import Answers\n"
        "db = FalkorDB(host=os.environ['FALKORDB_HOST'], port=int(os.environ['FALKORDB_PORT']))\n"
        f"graph = db.select_graph({graph.name!r})\n"
        "with Answers().held(graph, 'k\\x1fkilled'):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(120)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", holding], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        time.sleep(2.5 * HOLD_MS / 1000)  # renewed meanwhile: still held past its first lease
        assert graph.execute_command("EXISTS", _hold_name(graph, "k\x1fkilled")) == 1
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        assert 0 < graph.execute_command("PTTL", _hold_name(graph, "k\x1fkilled")) <= HOLD_MS
        with Answers().held(graph, "k\x1fkilled"):  # taken once the lease runs out
            pass
        assert graph.execute_command("EXISTS", _hold_name(graph, "k\x1fkilled")) == 0
    finally:
        if holder.poll() is None:
            holder.kill()


def test_another_call_with_the_same_key_never_gets_the_replies_kept_for_the_first(graph):
    """A crash left the replies of one call of a key; a different call with that key writes its own."""
    from lighthouse import note

    answers = Answers()
    ident = answers.ident("key1", "retry-9")
    first, second = fingerprint("note", {"text": "a"}), fingerprint("note", {"text": "b"})
    assert answers.request(ident, first) != answers.request(ident, second)
    kept = note(answers.once(graph, ident, first), "a", "agent", episode="e")
    assert note(answers.once(graph, ident, first), "a", "agent", episode="e") == kept  # replayed
    other = note(answers.once(graph, ident, second), "b", "agent", episode="e")
    assert other["seq"] == kept["seq"] + 1
    answers.settle(graph, ident, first)
    answers.settle(graph, ident, second)
    assert rows(graph, "MATCH (r:`lh.Reply`) RETURN count(r)") == [[0]]
