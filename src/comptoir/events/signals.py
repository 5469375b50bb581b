"""Waking the in-process delivery worker as soon as a transaction that created events
commits (other processes learn it from PostgreSQL's NOTIFY, or by polling on SQLite)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.orm import Session

NEW_EVENTS = "comptoir_new_events"  # session.info flag set by events.record
_listeners: set[Callable[[], None]] = set()


def on_new_events(callback: Callable[[], None]) -> Callable[[], None]:
    """Call `callback` after each commit that created events; returns the unsubscriber."""
    _listeners.add(callback)
    return lambda: _listeners.discard(callback)


def new_events_committed() -> None:
    """Events were committed outside a session (a single-statement `fastdb.Write`)."""
    for callback in list(_listeners):
        callback()


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if session.info.pop(NEW_EVENTS, False):
        new_events_committed()


@event.listens_for(Session, "after_soft_rollback")
def _after_rollback(session: Session, _previous_transaction: object) -> None:
    session.info.pop(NEW_EVENTS, None)
