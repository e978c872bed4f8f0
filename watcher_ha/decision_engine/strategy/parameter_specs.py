"""The JSON Schema properties that several strategies declare alike.

Watcher declares ``period``, ``granularity``, ``aggregation_method`` and
its thresholds again in each strategy, with the same descriptions and
each its own default; here each is built by one function, and each
strategy passes the default (and, where Watcher words it otherwise, the
description) it had in Watcher, so the specs the API shows are
Watcher's.
"""

from oslo_log import log

LOG = log.getLogger(__name__)

# Watcher's two wordings of ``period``.
STATISTIC_PERIOD = ('The time interval in seconds for getting statistic '
                    'aggregation')
CEILOMETER_PERIOD = 'aggregate time period of ceilometer'
GRANULARITY = ('The time between two measures in an aggregated timeseries '
               'of a metric.')
AGGREGATION_METHOD = ('Function used to aggregate multiple measures into '
                      'an aggregate. For example, the min aggregation '
                      'method will aggregate the values of different '
                      'measures to the minimum value of all the measures '
                      'in the time range.')


def number(description, default, **bounds):
    """A number property (a threshold, a period...); ``bounds``:
    JSON Schema's minimum and maximum, where Watcher gives them."""
    return {'description': description, 'type': 'number', **bounds,
            'default': default}


def period(default, description=STATISTIC_PERIOD):
    """The seconds of history a strategy's metrics are aggregated over."""
    return number(description, default)


def granularity(**bounds):
    """The datasource's step between two measures; 300 s in every
    Watcher strategy."""
    return number(GRANULARITY, 300, **bounds)


def aggregation_method():
    """Per resource kind, the datasource's aggregate; Watcher's
    deprecated ``node`` stands for ``compute_node`` when set."""
    return {
        'description': AGGREGATION_METHOD,
        'type': 'object',
        'properties': {
            'instance': {'type': 'string', 'default': 'mean'},
            'compute_node': {'type': 'string', 'default': 'mean'},
            'node': {'type': 'string', 'default': ''}},
        'default': {'instance': 'mean', 'compute_node': 'mean', 'node': ''}}


def per_resource(name, given, spec):
    """``{'instance': ..., 'compute_node': ...}`` of a parameter given per
    resource kind (``aggregation_method``, ``periods``): the values given
    over the ``spec``'s defaults. Watcher's deprecated ``node``, when
    given a value other than its default, stands for ``compute_node``."""
    values = dict(spec['default'], **given)
    if values['node'] != spec['default']['node']:
        LOG.warning('"node" in %s is deprecated: use "compute_node"', name)
        values['compute_node'] = values['node']
    return {'instance': values['instance'],
            'compute_node': values['compute_node']}
