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


class Resource:
    """The rules of one resource of the Watcher API, declared once: its
    name (the rules' prefix), its path, what names one of it in a path,
    and how the descriptions call it.

    Each operation's rule name is ``<resource>:<operation>``; the
    operations are added in the order the policy file shows them."""

    def __init__(self, resource, path, ident=None, plural=None, one=None):
        self.resource = resource
        self.path = path
        self.ident = ident
        self.plural = plural
        self.one = one
        self._rules = []

    def operation(self, name, check, method, sub, description):
        """Declare an operation; its rule name."""
        rule = '%s:%s' % (self.resource, name)
        self._rules.append(policy.DocumentedRuleDefault(
            name=rule, check_str=check, description=description,
            operations=[{'path': self.path + sub.format(ident='{%s}'
                                                        % self.ident),
                         'method': method}]))
        return rule

    def reads(self):
        """The rule names of listing (with and without detail) and
        showing one, for readers."""
        return (
            self.operation('get_all', READER, 'GET', '',
                           'List %s.' % self.plural),
            self.operation('detail', READER, 'GET', '/detail',
                           'List %s with detail.' % self.plural),
            self.operation('get', READER, 'GET', '/{ident}',
                           'Show %s.' % self.one))

    def writes(self, *names):
        """Rule names of the administrators' ``names`` among create,
        update and delete, in that order."""
        shapes = {'create': ('POST', '', 'Create %s.'),
                  'update': ('PATCH', '/{ident}', 'Update %s.'),
                  'delete': ('DELETE', '/{ident}', 'Delete %s.')}
        return tuple(
            self.operation(name, ADMIN, shapes[name][0], shapes[name][1],
                           shapes[name][2] % self.one)
            for name in names)

    def list_rules(self):
        return list(self._rules)
