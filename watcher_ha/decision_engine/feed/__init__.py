"""The notification feed of the data models: how notifications arrive
(listener, listener_process: one engine's pool queue on the bus), who
gets them (dispatch), when a gone engine's queue is removed (pools), and
what a source's notifications change in a model (nova_events).

The layers go one way: collectors use the feed and the model, the feed
uses the model, and the model (decision_engine/model/ but its
collectors) imports neither, so that a second model reuses ClusterModel
with its own events.
"""
