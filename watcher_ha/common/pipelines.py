"""What an audit pipeline may be (watcher-specs audit-pipeline.rst,
"Audit Pipeline Resource"): a ONESHOT cascade of two to ten stages, each
an audit template. The limits are the spec's, fixed, not options."""

from watcher_ha.common.states import AuditType
from watcher_ha.common.states import ExecutionMode

MIN_STAGES = 2
MAX_STAGES = 10
AUDIT_TYPES = (AuditType.ONESHOT,)
EXECUTION_MODES = ExecutionMode.ALL
# The watcher-ha microversion that serves audit pipelines.
SINCE = 'watcher-ha 1.4'


def refusal(audit_type, execution_mode, stages):
    """Why a pipeline of ``audit_type``, ``execution_mode`` and ``stages``
    (a list) cannot be made, or None."""
    if audit_type not in AUDIT_TYPES:
        return ('audit_type %s is not supported: an audit pipeline is %s '
                '(CONTINUOUS and EVENT pipelines are not specified yet)'
                % (audit_type, ' or '.join(AUDIT_TYPES)))
    if execution_mode not in EXECUTION_MODES:
        return ('execution_mode %s is not supported: use %s'
                % (execution_mode, ' or '.join(EXECUTION_MODES)))
    if not MIN_STAGES <= len(stages) <= MAX_STAGES:
        return ('an audit pipeline has %d to %d stages, not %d'
                % (MIN_STAGES, MAX_STAGES, len(stages)))
    return None
