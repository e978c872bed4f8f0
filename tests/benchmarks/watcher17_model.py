#!/usr/bin/env python3
"""OpenStack Watcher 17's cluster data model, measured the way
bench_model.py measures ours, on the same cluster and the same events.

Runs inside a virtualenv with python-watcher==17.0.0 (bench_model.py makes
one under .bench/ and runs this script in it); it imports nothing from
watcher_ha.

    .bench/watcher17-venv/bin/python tests/benchmarks/watcher17_model.py \\
        CLUSTER.json [--copies 3] [--budget 60]

CLUSTER.json, written by bench_model.py: ``hosts`` and ``instances`` (the
elements of the model our side built, with where each server runs),
``created`` (the servers' creation time) and ``events`` (the first
Nova ``instance.update`` notifications our side applied: publisher id,
payload, envelope metadata).

With Watcher's own classes (ModelRoot, a networkx graph of
element.ComputeNode and element.Instance, map_instance) it measures:

- build: the model built as Watcher's NovaModelBuilder does, element by
  element (add_node, add_instance, map_instance);
- memory: what that model holds, with tracemalloc;
- to_xml and copy.deepcopy: what Watcher does for each audit
  (BaseClusterDataModelCollector.get_latest_cluster_data_model dumps the
  model to XML for a debug log line, whatever the log level, then deep
  copies it);
- apply rate: the events fed to Watcher's own handler,
  watcher.decision_engine.model.notification.nova.VersionedNotification,
  through its oslo.messaging entry point ``info()``, on a real
  NovaClusterDataModelCollector holding the model, as the decision
  engine's notification listener calls it. Logging is off (Watcher logs
  every event at INFO): the figure is the model's cost alone. Events are
  applied until all are done or ``--budget`` seconds have passed.

Prints one JSON object on stdout.
"""

import argparse
import copy
import datetime
import gc
import json
import logging
import statistics
import sys
import time
import tracemalloc
import types
import warnings


def setup():
    from oslo_config import cfg

    from watcher import conf  # noqa: F401  (registers Watcher's options)
    from watcher.decision_engine.model import model_root  # noqa: F401
    from watcher.decision_engine.model.collector import nova  # noqa: F401
    cfg.CONF([], project='watcher', default_config_files=[])
    logging.disable(logging.CRITICAL)
    # After the imports, some of which set filters of their own: the
    # tenant id of the captured notifications is no UUID, which
    # oslo.versionedobjects would warn about.
    warnings.resetwarnings()
    warnings.simplefilter('ignore')


def build(cluster):
    """Watcher's model of ``cluster``, element by element."""
    from watcher.decision_engine.model import element
    from watcher.decision_engine.model import model_root
    created = datetime.datetime.fromisoformat(cluster['created'])
    model = model_root.ModelRoot()
    nodes = {}
    for host in cluster['hosts']:
        node = element.ComputeNode(
            uuid=host['uuid'], hostname=host['hostname'],
            memory=host['memory_mb'],
            memory_mb_reserved=host['memory_mb_reserved'],
            disk=host['disk_gb'], disk_gb_reserved=host['disk_gb_reserved'],
            vcpus=host['vcpus'], vcpu_reserved=host['vcpu_reserved'],
            memory_ratio=host['memory_ratio'],
            vcpu_ratio=host['vcpu_ratio'], disk_ratio=host['disk_ratio'],
            state=host['state'], status=host['status'],
            disabled_reason=host['disabled_reason'])
        model.add_node(node)
        nodes[host['hostname']] = node
    for server in cluster['instances']:
        instance = element.Instance(
            uuid=server['uuid'], name=server['name'],
            memory=server['memory_mb'], disk=server['disk_gb'],
            vcpus=server['vcpus'], state=server['state'],
            metadata=dict(server['metadata']),
            project_id=server['project_id'], locked=server['locked'],
            created=created, host=server['host'],
            hypervisor_hostname=server['host'], flavor_extra_specs={},
            pinned_az='')
        model.add_instance(instance)
        model.map_instance(instance, nodes[server['host']])
    return model


def collector_holding(model):
    """Watcher's Nova collector with ``model`` as its current model (no
    OpenStack clients: nothing here reaches Nova)."""
    from watcher.decision_engine.model.collector import nova
    collector = nova.NovaClusterDataModelCollector(
        config=types.SimpleNamespace(period=3600), osc=object())
    collector.cluster_data_model = model
    return collector


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('cluster', help='JSON file from bench_model.py')
    parser.add_argument('--copies', type=int, default=3,
                        help='deep copies to time (median)')
    parser.add_argument('--budget', type=float, default=60.0,
                        help='seconds at most for applying events')
    args = parser.parse_args()
    setup()
    from watcher import version
    with open(args.cluster) as f:
        text = f.read()
    result = {'watcher_version': version.version_info.version_string(),
              'python': sys.version.split()[0]}

    cluster = json.loads(text)
    result['hosts'] = len(cluster['hosts'])
    result['servers'] = len(cluster['instances'])
    raw_events = cluster['events']
    started = time.perf_counter()
    model = build(cluster)
    result['build_s'] = time.perf_counter() - started
    del model, cluster
    gc.collect()

    # Memory: what the model keeps of everything made while building it
    # (the JSON it came from included, then dropped), as our side counts
    # its strings and elements.
    tracemalloc.start()
    cluster = json.loads(text)
    del cluster['events']
    model = build(cluster)
    del cluster
    gc.collect()
    result['memory_bytes'] = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del text

    # What an audit costs Watcher before its strategy starts.
    started = time.perf_counter()
    xml = model.to_xml()
    result['to_xml_s'] = time.perf_counter() - started
    result['to_xml_bytes'] = len(xml)
    del xml
    copies = []
    for _ in range(args.copies):
        started = time.perf_counter()
        duplicate = copy.deepcopy(model)
        copies.append(time.perf_counter() - started)
        del duplicate
        gc.collect()
    result['deepcopy_s'] = statistics.median(copies)
    result['deepcopies'] = len(copies)

    # Notifications through Watcher's own handler.
    endpoint = collector_holding(model).notification_endpoints[0]
    todo = [(event['publisher_id'], event['event_type'],
             copy.deepcopy(event['payload']), event['metadata'])
            for event in raw_events]
    applied = 0
    cpu_started = time.process_time()
    started = time.perf_counter()
    deadline = started + args.budget
    for publisher_id, event_type, payload, metadata in todo:
        endpoint.info({}, publisher_id, event_type, payload, metadata)
        applied += 1
        if time.perf_counter() > deadline:
            break
    result['apply_s'] = time.perf_counter() - started
    result['apply_cpu_s'] = time.process_time() - cpu_started
    result['events'] = applied
    result['events_offered'] = len(todo)

    # The events did what they say: the last one's server is where it
    # names, and no server was lost or added.
    last = todo[applied - 1][2]['nova_object.data']
    where = model.get_node_by_instance_uuid(last['uuid'])
    assert where.hostname == last['host'], (where.hostname, last['host'])
    assert len(model.get_all_instances()) == result['servers']
    json.dump(result, sys.stdout)
    print()


if __name__ == '__main__':
    main()
