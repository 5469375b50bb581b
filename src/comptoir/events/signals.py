"""What a commit tells this process at once: that it made events (waking the in-process
delivery worker and event streams) and which locations' orders, or the locations themselves,
it changed (the back office's live boards). Other processes learn the same from
PostgreSQL's NOTIFY (`events.repository`), or by polling on SQLite; `events.wakeup` hears
both for the process's live answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import event
from sqlalchemy.orm import Session

NEW_EVENTS = "comptoir_new_events"  # session.info flag set by events.record
CHANGED_LOCATIONS = "comptoir_changed_locations"  # session.info set of location ids (events.repository.announce)


@dataclass(frozen=True, slots=True)
class Committed:
    """What one commit made: events, and the locations whose orders (or settings) changed."""

    events: bool = False
    locations: frozenset[int] = frozenset()


_listeners: set[Callable[[Committed], None]] = set()


def on_commit(callback: Callable[[Committed], None]) -> Callable[[], None]:
    """Call `callback` after each commit that created events or changed a location's orders;
    returns the unsubscriber."""
    _listeners.add(callback)
    return lambda: _listeners.discard(callback)


def on_new_events(callback: Callable[[], None]) -> Callable[[], None]:
    """Call `callback` after each commit that created events; returns the unsubscriber."""

    def heard(committed: Committed) -> None:
        if committed.events:
            callback()

    return on_commit(heard)


def committed(*, events: bool = False, locations: Iterable[int] = ()) -> None:
    """Something was committed outside a session (a single-statement `fastdb.Write`)."""
    made = Committed(events, frozenset(locations))
    for callback in list(_listeners):
        callback(made)


def new_events_committed() -> None:
    """Events were committed outside a session (a single-statement `fastdb.Write`)."""
    committed(events=True)


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    events = bool(session.info.pop(NEW_EVENTS, False))
    locations: set[int] = session.info.pop(CHANGED_LOCATIONS, set())
    if events or locations:
        committed(events=events, locations=locations)


@event.listens_for(Session, "after_soft_rollback")
def _after_rollback(session: Session, _previous_transaction: object) -> None:
    session.info.pop(NEW_EVENTS, None)
    session.info.pop(CHANGED_LOCATIONS, None)
