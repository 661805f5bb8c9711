"""remember(): rows in waves and bounded queries, each decided against the current State and written."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

from redis.exceptions import ResponseError

from .. import clock, values
from ..errors import ReceiptMismatch, WrongType
from ..graphs import read
from ..kinds import Kind, is_kind
from ..values import Refused
from .ahead import prepared_ahead
from .applying import apply_plans
from .creating import apply_created
from .current import ABSENT, QUIET, read_current
from .endings import ENDING, endings_of
from .failures import REFUSALS, Failure, keep_failures
from .late import holding, read_around
from .plans import Around, decide
from .rows import Row, key_of, typed

# One query carries at most this much: a batch is atomic per query, not across queries. Rows bound the
# work of a query, characters the parameters the server parses and holds at once, targets the nodes
# one query may create (500 rows x 2 relations x 200 new targets were 200,000 nodes in one query).
QUERY_ROWS = 500
QUERY_CHARS = 1_000_000
QUERY_TARGETS = 2_000
ATTEMPTS = 5  # reads of a row that each found another writer, before it is busy


def _repeats_the_past(row: Row, around: Around) -> Around | None:
    """For a late row that says what the State its time falls in says: what decide() needs, from the
    light read alone (no read around it, and no write unless its seen_last moves)."""
    past = around.past
    if past is None or past.fp is None or past.fp != row.fp:
        return None
    return Around(rev=around.rev, current=around.current, prev=past)


def _just_before_the_current(row: Row, around: Around) -> Around | None:
    """For a late row in the State just before the current one: what decide() needs, from the light read
    alone, which brought the edges of both States (no read around it)."""
    if around.late_edges is None:
        return None
    after = around.current
    return Around(
        rev=around.rev,
        current=after,
        prev=around.past,
        next=after,
        edges_prev=holding(around.late_edges, row.t),
        edges_next=holding(around.late_edges, after.valid_from),
    )


def check_entries(graph, rows: list[Row]) -> set[str]:
    """The entry ids that the rows name and that exist: one read for the rows (of one query)."""
    named = sorted({row.entry for row in rows if row.entry is not None})
    if not named:
        return set()
    result = read(graph, "UNWIND $ids AS id MATCH (n:Entry {id: id}) RETURN n.id", {"ids": named})
    return {row[0] for row in result}


def _refuse(refusals: list, statuses: dict, kind: Kind, by: str, row: Row, status: str, message: str) -> None:
    statuses[row.index] = status
    refusals.append(Failure(status, kind.label, row.key, row.raw, message, by, index=row.index))


def write_rows(
    graph,
    kind: Kind,
    by: str,
    rows: list[Row],
    statuses: dict,
    refusals: list,
    partial=None,
    trust=None,
    ended: dict | None = None,
) -> None:
    """Decides and writes rows of distinct keys; retried against a new read while another writer won.

    The plans of the current rows and of the late ones go in one query: what a call writes of these rows
    is written whole or not at all. partial: for update(), a function that completes a row from what the
    current State holds. trust: "candidate" for rows a model drew (their new States carry the mark).
    ended: a dict that takes, by row index, what each written row ended (endings.py).
    """
    pending = {row.index: row for row in rows}
    for _attempt in range(ATTEMPTS):
        current = read_current(graph, kind, list(pending.values()), full=partial is not None)
        if partial is None and all(current[typed(row.key)] is ABSENT for row in pending.values()):
            # Only new entities (a batch of creates): their rows go as the query reads them, no plans.
            written = apply_created(graph, kind, by, list(pending.values()), trust)
            for index in _answered(written, pending.keys()):
                statuses[index] = "created"
                del pending[index]
            if not pending:
                return
            continue
        if partial is not None:
            for index, row in list(pending.items()):
                try:
                    pending[index] = partial(row, current[typed(row.key)])
                except Refused as error:
                    _refuse(refusals, statuses, kind, by, row, error.reason, str(error))
                    del pending[index]
        late = [row for row in pending.values() if partial is None and _is_late(row, current)]
        first_read = {}  # the late rows decided from the light read alone
        for row in late:
            around = current[typed(row.key)]
            first_read[row.index] = _repeats_the_past(row, around) or _just_before_the_current(row, around)
        first_read = {index: around for index, around in first_read.items() if around is not None}
        late = [row for row in late if row.index not in first_read]
        arounds = read_around(graph, kind, late, current)
        arounds.update(first_read)
        late_indexes = {row.index for row in late}
        plans = []
        decided = {}
        ending = []  # (row, around) of the rows that may end something, for `ended`
        for index, row in pending.items():
            if index in late_indexes and index not in arounds:
                continue  # a late row that the second read did not find: read again
            around = arounds.get(index) or current[typed(row.key)]
            if around is QUIET:
                statuses[index] = "unchanged"
                continue
            status, plan = decide(kind, row, around, partial=partial is not None)
            decided[index] = status
            if ended is not None and status in ENDING and plan is not None:
                ending.append((row, around))
            if plan is not None:
                if trust is not None and plan.get("new"):
                    plan["trust"] = trust
                plans.append(plan)
            elif status in REFUSALS:
                _refuse(refusals, statuses, kind, by, row, status, why(status, around))
            else:
                statuses[index] = status
        done = _answered(apply_plans(graph, kind, by, plans), {plan["i"] for plan in plans})
        for index in done:
            statuses[index] = decided[index]
        if ending:
            ended.update(endings_of(graph, kind, [one for one in ending if one[0].index in done]))
        for index in [index for index in pending if index in statuses]:
            del pending[index]
        if not pending:
            return
    for row in pending.values():
        _refuse(refusals, statuses, kind, by, row, "busy", why("busy"))


def _answered(written: set[int], given: AbstractSet[int]) -> set[int]:
    """The indexes a write answered for, each one of a row it was given (else ReceiptMismatch)."""
    if not written <= given:
        raise ReceiptMismatch(f"the database answered for rows it was not given: {sorted(written)[:10]}")
    return written


def _is_late(row: Row, current: dict) -> bool:
    held = current[typed(row.key)].current
    return held is not None and row.t < held.valid_from


def why(status: str, around: Around | None = None) -> str:
    """The reason a refusal receipt gives for a status the write rule decided."""
    if status == "stale" and around is not None and around.current is not None:
        start = clock.stamp_of(around.current.valid_from)
        return (
            f"the time is before the start of the current State ({start}) or a later row repeated its State"
        )
    return {
        "stale": "a later row repeated the State this time falls in: its place in history is unknown",
        "conflict": "another row of the same time says something else",
        "busy": f"lost to other writers {ATTEMPTS} times",
        "missing": "the entry the row names does not exist",
    }.get(status, status)


def check_call(kind: object, by: object) -> str:
    """The identity arguments of a write: by and kind (Refused, a ValueError: API 1.4 keeps TypeError
    for containers, callables and flags, and for a kind only in impact_of_state()).

    Raised before anything is written, and no WriteFailure is stored for them.
    """
    checked_by = values.name(by, "by")
    if not is_kind(kind):
        raise Refused(f"kind must be a Kind, not {values.sort_of(kind)}")
    return checked_by


def _listed(graph, kind: Kind, by: str, rows: object) -> list:
    """The rows of a call as a list; an iterable that fails while it is read is refused as a whole."""
    if type(rows) is list:
        return list.copy(rows)
    try:
        return list(rows)
    except Exception as error:
        message = f"rows must be an iterable of rows that can be read: {values.sort_of(error)}"
        keep_failures(
            graph,
            [Failure("invalid", kind.label, None, {"by": by, "rows": values.sort_of(rows)}, message, by)],
        )
        raise Refused(message) from None


def remember(graph, kind, rows, by, *, candidate: bool = False, endings: bool = False) -> list[dict]:
    """Writes rows by the write rule; one receipt per row, in order: {"key", "status"} (and "reason").

    rows: any iterable of rows {"key", "t", "values", "relations", "entry"} (a value None means absent:
    it is left out). by must be a name (else
    Refused, a ValueError, and nothing is written), and so must kind be a Kind. What a row holds
    never raises: a row that cannot be stored gets a refusal receipt and a stored WriteFailure.

    What is atomic: one write query. The rows of a call go in waves (the n-th row of each key in wave n),
    and each wave in queries of at most 500 rows, 1,000,000 characters and 2,000 relation targets; the
    current and the late rows of one such query are written together or not at all. A database error
    fails the rows of that query only ("failed"), and the receipts say which rows were written. The
    first wave's queries go as its rows are checked: a call of 1,000 rows or more has the next ones
    checked in a thread of its own while the server works (ahead.py).

    candidate (keyword only): the rows were drawn by a model (by names it): the States they make are
    candidates until a person confirms or rejects them (review.py). Such a row may not hold a value named
    trust or review (the names the reads show the mark under): it is refused as invalid.

    endings (keyword only): the receipt of a row that ended values or relations its entity held just
    before the row's time (the row left them out) also says so: "ended": {"values": [names], "relations":
    {type: [keys]}}, only what did end named. Told by the write from what it decided on (endings.py).
    """
    by = check_call(kind, by)
    if type(candidate) is not bool:
        raise WrongType(f"candidate is True or False, not {values.sort_of(candidate)}")
    if type(endings) is not bool:
        raise WrongType(f"endings is True or False, not {values.sort_of(endings)}")
    ended: dict[int, dict] | None = {} if endings else None
    listed = _listed(graph, kind, by, rows)
    trust = "candidate" if candidate else None
    statuses: dict[int, str] = {}
    refusals: list[Failure] = []
    keys: dict[int, object] = {}
    later: list[Row] = []  # rows of a key that an earlier row of the call holds: the later waves

    def first_rows(prepared) -> Iterator[Row]:
        """The first row of each key, in order (the first wave); refusals and later rows kept aside."""
        seen = set()
        for index, row, error in prepared:
            if error is not None:
                keys[index] = key_of(listed[index])
                statuses[index] = error.reason
                refusals.append(
                    Failure(error.reason, kind.label, keys[index], listed[index], str(error), by, index=index)
                )
                continue
            keys[index] = row.key
            key = typed(row.key)
            if key in seen:
                later.append(row)
            else:
                seen.add(key)
                yield row

    with prepared_ahead(kind, listed, clock.present(), candidate) as prepared:
        for chunk in chunks(first_rows(prepared)):
            ready = with_entries(graph, kind, by, chunk, statuses, refusals)
            write_chunk(graph, kind, by, ready, statuses, refusals, trust=trust, ended=ended)
    ready = with_entries(graph, kind, by, later, statuses, refusals)
    write_ready(graph, kind, by, ready, statuses, refusals, trust=trust, ended=ended)
    keep_failures(graph, refusals)
    messages = {failure.index: failure.message for failure in refusals if failure.index is not None}
    if len(statuses) != len(listed):
        raise ReceiptMismatch(f"{len(statuses)} receipts for {len(listed)} rows")
    receipts = [receipt(keys[index], statuses[index], messages.get(index)) for index in range(len(listed))]
    for index, what in (ended or {}).items():
        receipts[index]["ended"] = what
    return receipts


def with_entries(graph, kind: Kind, by: str, rows: list[Row], statuses: dict, refusals: list) -> list[Row]:
    """The rows whose entry exists or that name none; the others refused as missing (one read), or as
    failed when the database refused that read."""
    try:
        existing, refused = check_entries(graph, rows), None
    except ResponseError as error:
        existing, refused = set(), str(error)
    ready = []
    for row in rows:
        if row.entry is not None and refused is not None:
            _refuse(refusals, statuses, kind, by, row, "failed", refused)
        elif row.entry is not None and row.entry not in existing:
            _refuse(refusals, statuses, kind, by, row, "missing", f"the entry {row.entry!r} does not exist")
        else:
            ready.append(row)
    return ready


def receipt(key: object, status: str, message: str | None) -> dict:
    """A row's receipt: {"key", "status"}, and "reason" only for invalid, missing and failed."""
    found = {"key": key, "status": status}
    if status in ("invalid", "missing", "failed"):
        found["reason"] = message or why(status)
    return found


def chunks(rows: Iterable[Row]) -> Iterator[list[Row]]:
    """Rows cut into queries of at most QUERY_ROWS rows, QUERY_CHARS characters and QUERY_TARGETS targets,
    each given as soon as it is whole (the row after it is known)."""
    chunk: list[Row] = []
    chars = targets = 0
    for row in rows:
        size = 2 * row.size  # a text value travels twice: as itself, and as the words the index reads
        if chunk and (
            len(chunk) >= QUERY_ROWS or chars + size > QUERY_CHARS or targets + row.targets > QUERY_TARGETS
        ):
            yield chunk
            chunk, chars, targets = [], 0, 0
        chunk.append(row)
        chars += size
        targets += row.targets
    if chunk:
        yield chunk


def write_ready(graph, kind: Kind, by: str, ready: list[Row], statuses: dict, refusals: list, **how) -> None:
    """Rows in waves (the n-th row of each key in wave n), each wave in bounded queries (chunks()); how:
    write_rows()'s partial, trust and ended."""
    waves: dict[object, list[Row]] = defaultdict(list)
    for row in ready:
        waves[typed(row.key)].append(row)
    depth = max((len(listed) for listed in waves.values()), default=0)
    for level in range(depth):
        wave = [listed[level] for listed in waves.values() if len(listed) > level]
        for chunk in chunks(wave):
            write_chunk(graph, kind, by, chunk, statuses, refusals, **how)


def write_chunk(graph, kind: Kind, by: str, chunk: list[Row], statuses: dict, refusals: list, **how) -> None:
    """One bounded query's rows (write_rows(), how its partial, trust and ended); a database error fails
    those of them not yet written."""
    try:
        write_rows(graph, kind, by, chunk, statuses, refusals, **how)
    except ResponseError as error:
        for row in chunk:
            if row.index not in statuses:
                _refuse(refusals, statuses, kind, by, row, "failed", str(error))
