"""oslo.policy enforcement for API requests."""

import threading

from oslo_config import cfg
from oslo_policy import policy

from watcher_ha import policies
from watcher_ha.common import exception

_ENFORCER = None
_LOCK = threading.Lock()


def get_enforcer(conf=None):
    """The process-wide enforcer (also the oslo.policy.enforcer hook)."""
    global _ENFORCER
    if _ENFORCER is None:
        # Request threads race here on a worker's first requests: publish
        # the enforcer only once its rules are registered, or a racing
        # thread gets PolicyNotRegistered (a 500).
        with _LOCK:
            if _ENFORCER is None:
                enforcer = policy.Enforcer(conf or cfg.CONF)
                enforcer.register_defaults(policies.list_rules())
                _ENFORCER = enforcer
    return _ENFORCER


def reset():
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def authorize(rule, context, target=None):
    """Raise PolicyNotAuthorized (403) unless ``context`` may do ``rule``."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    return get_enforcer().authorize(
        rule, target, context.to_policy_values(),
        do_raise=True, exc=exception.PolicyNotAuthorized, action=rule)
