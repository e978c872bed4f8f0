"""Child processes that die with the process that started them, however
it ends: the one way the demo and the functional tests start processes.

They start servers in sessions of their own, so that a signal to a
server's process group reaches the server's own children and not the
caller. But then nothing stops them when the caller is SIGKILLed (a
test's timeout, the OOM killer, a CI run stopped): a killed process runs
no cleanup, and a leftover all-in-one keeps its port, its database and
its CPU for good. Linux's parent-death signal does not depend on the
caller's cleanup: set in the child between fork and exec (prctl
PR_SET_PDEATHSIG) and kept across exec, it has the kernel SIGKILL the
child the moment its parent ends. Unlike a process group killed from a
finalizer, it holds whatever ends the parent, and unlike a reaper
process it needs nothing else alive.

Two limits, both kept here:

- The signal comes when the *thread* that forked the child ends, not the
  whole process: start children from a thread that lives as long as they
  do (a test's or a script's main thread), never from a short-lived one.
- It is not inherited by the child's own children. Those of our servers
  (oslo.service's API workers) watch their parent and exit with it; a
  program that daemonizes (pg_ctl) escapes it.
"""

import ctypes
import os
import signal
import subprocess

_PR_SET_PDEATHSIG = 1
# Loaded before any fork: the child only calls into it.
_libc = ctypes.CDLL(None, use_errno=True)


def _dying_with(parent):
    """What the child runs between fork and exec."""
    def set_parent_death_signal():
        if _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            # Not Linux, or refused: this child would outlive its parent.
            os._exit(127)
        # The parent ended between fork and prctl: no signal will come.
        if os.getppid() != parent:
            os._exit(127)
    return set_parent_death_signal


def popen(command, **kwargs):
    """subprocess.Popen(command, **kwargs), the child SIGKILLed when
    this thread ends."""
    return subprocess.Popen(command, preexec_fn=_dying_with(os.getpid()),
                            **kwargs)


def run(command, **kwargs):
    """subprocess.run(command, **kwargs), as ``popen``."""
    return subprocess.run(command, preexec_fn=_dying_with(os.getpid()),
                          **kwargs)


def detached(command, **kwargs):
    """subprocess.Popen(command, **kwargs) in a session of its own, left
    running when this process ends: for a command-line tool that starts
    servers and exits (tools/controllers.py), never for a test."""
    return subprocess.Popen(command, start_new_session=True, **kwargs)
