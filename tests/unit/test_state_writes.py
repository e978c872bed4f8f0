"""Every write of a row's state or version goes through the one
compare-and-swap (watcher_ha/db/transitions.py): this test reads the code.

An UPDATE elsewhere that sets ``state`` or ``version``, or that computes
``version + 1``, bypasses the state machine or the version check, as half
the writes of the decision engines and appliers once did.
"""

import ast
import pathlib

import watcher_ha

PACKAGE = pathlib.Path(watcher_ha.__file__).parent
PRIMITIVE = PACKAGE / 'db' / 'transitions.py'
GUARDED = {'state', 'version'}


def _is_update(node):
    """``node`` (the receiver of ``.values(...)``) is built on an UPDATE:
    ``sa.update(...)`` or ``update(...)``, possibly chained."""
    while isinstance(node, (ast.Call, ast.Attribute)):
        if isinstance(node, ast.Call):
            func = node.func
            if ((isinstance(func, ast.Attribute) and func.attr == 'update'
                 and isinstance(func.value, ast.Name)
                 and func.value.id in ('sa', 'sqlalchemy'))
                    or (isinstance(func, ast.Name) and func.id == 'update')):
                return True
            node = func
        else:
            node = node.value
    return False


def _keys(call):
    """The column names a ``.values(...)`` call sets, as far as the code
    shows them (keywords and dict literals)."""
    keys = {kw.arg for kw in call.keywords if kw.arg}
    for arg in call.args:
        if isinstance(arg, ast.Dict):
            keys |= {k.value for k in arg.keys
                     if isinstance(k, ast.Constant)}
    return keys


def bypasses(source, path='<source>'):
    """[(line, what)] of the writes in ``source`` that bypass the
    primitive."""
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        if (isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == 'values'
                and _is_update(node.func.value)):
            for key in sorted(_keys(node) & GUARDED):
                found.append((node.lineno, 'UPDATE sets %s' % key))
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == 'version'):
            found.append((node.lineno, 'version + ...'))
    return found


def test_no_state_or_version_write_outside_the_primitive():
    offenders = [
        '%s:%d: %s' % (path.relative_to(PACKAGE.parent), line, what)
        for path in sorted(PACKAGE.rglob('*.py')) if path != PRIMITIVE
        for line, what in bypasses(path.read_text(), path)]
    assert offenders == [], (
        'write these through watcher_ha.db.transitions.write/swap:\n'
        + '\n'.join(offenders))


def test_the_check_sees_the_writes_it_forbids():
    """The check itself: each of these bypasses the primitive (as
    audit_runs and plan_runs once did)."""
    assert [what for _, what in bypasses(
        "sa.update(Audit).where(x).values(state='PENDING')\n"
        "sa.update(Plan).values({'state': s, 'hostname': None})\n"
        "session.execute(sa.update(A).where(y).values(\n"
        "    version=A.version + 1))\n")] == [
        'UPDATE sets state', 'UPDATE sets state', 'UPDATE sets version',
        'version + ...']
    # Inserting a row in its first state is not a state change.
    assert bypasses("sa.insert(Audit).values(state='PENDING')\n") == []
