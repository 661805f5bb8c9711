"""The long parts of an entity's page written as markup here rather than in its template: the table of its
States, the table of its relation windows, and the timeline's bars. A page of 1,000 States holds some
3,000 rows and bars; through Jinja (an escape, a lookup and a call for each field) they cost most of the
page's time, written here a fifth of it.

Every text that comes from the graph (values, names, keys, ids, note text, reasons) goes through
_text(), which escapes &, <, >, " and ' as autoescaping does (html.escape: a quarter of markupsafe's
escape() time, which also makes a Markup of each); what is written unescaped is made here: numbers,
class names of a fixed set, and times in the pages' one format. The templates place the result as it is.
"""

from __future__ import annotations

import html
from datetime import datetime
from functools import lru_cache

from markupsafe import Markup

from .rendering import SHOWN_TEXT, entity_link, link, shown, when_text
from .timeline import Lane

NO_TIME = '<span class="none">—</span>'
TRUSTS = frozenset({"confirmed", "candidate", "rejected"})


def _text(value: object) -> str:
    text = value if isinstance(value, str) else str(value)
    # Most texts hold none of the five: five scans in C cost a third of html.escape()'s five replaces.
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        return html.escape(text)
    return text


@lru_cache(maxsize=8_192)
def _moment(value: datetime) -> str:
    return when_text(value)  # digits, "-", ":", " " and "Z": nothing to escape


def _time(value: object) -> str:
    """A time as when_text() writes it, or a dash for none. A State's end is the next one's start, and
    many share their recording time: each is written once."""
    if isinstance(value, datetime):
        return _moment(value)
    return NO_TIME if value is None else _text(when_text(value))


def _trust(state: dict) -> str:
    trust = state.get("trust") or "confirmed"
    return trust if trust in TRUSTS else "confirmed"  # a class name: only the library's three


def _pairs(values: dict, limit: int | None = None) -> str:
    return " ".join(
        f'<span class="pair"><b>{_text(name)}</b> <span class="value">{_text(shown(values[name], limit))}'
        "</span></span>"
        for name in sorted(values)
    )


def _review(review: dict | None) -> str:
    if not review:
        return ""
    why = f": “{_text(review['why'])}”" if review.get("why") else ""
    return (
        f'<div class="review-record">{_text(review.get("trust"))} by {_text(review.get("by"))} at '
        f"{_time(review.get('at'))}{why}</div>"
    )


def _evidence(state: dict, entry: dict | None) -> str:
    if entry is None:
        if state.get("entry"):
            return f"{_text(state['entry'])} (not found)"
        return '<span class="none">none named</span>'
    found = (
        f'<a href="{_text(link("/console/entry", id=entry["id"]))}">{_text(entry["id"])}</a> '
        f'({_text(entry["type"])}, episode <a href="{_text(link("/console/episode", id=entry["episode"]))}">'
        f'{_text(entry["episode"])}</a>)<div class="value evidence-text">{_text(shown(entry["text"], SHOWN_TEXT))}</div>'
    )
    if entry.get("invalidated_at"):
        found += (
            f'<div class="invalidated">invalidated by {_text(entry.get("invalidated_by"))} at '
            f"{_time(entry['invalidated_at'])}: {_text(entry.get('invalidated_why'))}</div>"
        )
    return found


def state_rows(rows: list[dict]) -> Markup:
    """The rows of the States table (as pages.entity_facts() gives them), oldest first. The cells of
    times carry class "when": console.js shows them in the visitor's zone on hover."""
    written = []
    for number, row in enumerate(rows, start=1):
        state, trust = row["state"], _trust(row["state"])
        late = ' <span class="badge late-badge">late</span>' if row["late"] else ""
        compare = f' <a href="{_text(row["compare"])}" class="compare">Δ</a>' if row["compare"] else ""
        until = _time(state["valid_to"]) if state.get("valid_to") else "open"
        cites = " ".join(
            f'<a href="{_text(link("/console/entry", id=cite["id"]))}">{_text(cite["id"])}</a>'
            for cite in row["cited_by"]
        )
        written.append(
            f'<tr class="state-row trust-{trust}{" late" if row["late"] else ""}" id="state-{number}">'
            f"<td>{number}{late}{compare}</td>"
            f'<td class="when">{_time(state["valid_from"])} → {until}</td>'
            f"<td>{_pairs(row['values'])}</td>"
            f"<td>{_text(state.get('by') or '')}</td>"
            f'<td class="when">{_time(state.get("recorded_at"))}</td>'
            f'<td><span class="badge trust-badge trust-{trust}">{trust}</span>{_review(state.get("review"))}</td>'
            f"<td>{_evidence(state, row['evidence'])}</td>"
            f"<td>{cites}</td></tr>\n"
        )
    return Markup("".join(written))


def window_rows(windows: list[dict]) -> Markup:
    """The rows of the relation windows' table (as lighthouse.relation_windows() gives them)."""
    written = []
    for window in windows:
        until = _time(window["valid_to"]) if window.get("valid_to") else "open"
        target = _text(entity_link(window["target_label"], window["target"]))
        written.append(
            f'<tr class="window-row"><td>{_text(window["relation"])}</td>'
            f'<td><a href="{target}">{_text(window["target"])}</a></td>'
            f'<td class="when">{_time(window["valid_from"])} → {until}</td>'
            f"<td>{_text(window.get('by') or '—')}</td>"
            f'<td class="when">{_time(window.get("recorded_at"))}</td></tr>\n'
        )
    return Markup("".join(written))


def lane_bars(lane: Lane) -> Markup:
    """A timeline lane's bars as SVG: a rect each (its title the hover text), and a mark over a late one.
    The lane's group places them (its transform); their height and y are in console.css."""
    written = []
    for bar in lane.bars:
        ident = f' data-id="{_text(bar.ident)}"' if bar.ident else ""
        written.append(
            f'<rect x="{bar.x}" width="{bar.width}" class="{_text(bar.css)}"{ident}>'
            f"<title>{_text(bar.title)}</title></rect>"
        )
        if "late" in bar.css:
            written.append(f'<path d="M{bar.x} 0 l4 0 l-2 4 z" class="late-mark"/>')
    return Markup("\n".join(written))
