"""The rules every translator of notifications into model changes
follows (nova_events for the compute model, cinder_events for the
storage model), written once."""


def dispatch(handlers, changes, event):
    """Apply ``event`` with the first of ``handlers`` (pairs of event
    types and ``handle(changes, event)``) that takes its type; what that
    names the model does not know, nothing when none takes it."""
    for event_types, handle in handlers:
        if event.event_type in event_types:
            return handle(changes, event)
    return set()


def buried(changes, uuid, event):
    """Whether the element ``uuid`` was deleted for good, or removed
    after ``event`` was sent: the event then changes nothing (a delete
    wins whatever comes late)."""
    tombstone = changes.tombstone(uuid)
    return tombstone is not None and (tombstone.final
                                      or event.stamp <= tombstone.stamp)
