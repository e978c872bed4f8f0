from oslo_policy import policy

ADMIN = 'rule:admin_api'
READER = 'rule:reader_api'
ADMIN_OR_SERVICE = 'rule:admin_or_service_api'

RULES = [
    policy.RuleDefault(
        'admin_api', 'role:admin or role:administrator',
        description='Cloud administrators: may do everything.'),
    # Audits, plans and the data model span every project: reading them is
    # for cloud administrators and system-scoped readers, not for project
    # members (whose tokens carry the implied reader role too).
    policy.RuleDefault(
        'reader_api', '(role:reader and system_scope:all) or rule:admin_api',
        description='May read every resource, change none: system-scoped '
                    'readers and administrators.'),
    policy.RuleDefault(
        'admin_or_service_api', 'rule:admin_api or role:service',
        description='Administrators, or other OpenStack services (such as '
                    'aodh alarms calling webhooks).'),
]


def list_rules():
    return RULES


def rules_for(resource, path, operations):
    """DocumentedRuleDefaults for ``resource``.

    ``operations`` maps an operation name to (check string, method, path
    below ``path``, description).
    """
    return [
        policy.DocumentedRuleDefault(
            name='%s:%s' % (resource, name),
            check_str=check,
            description=description,
            operations=[{'path': path + sub, 'method': method}])
        for name, (check, method, sub, description) in operations.items()
    ]
