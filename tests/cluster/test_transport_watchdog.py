"""transport.Watchdog: the one thread that ends reads whose body outlives its deadline."""

from __future__ import annotations

import threading
from typing import Any

from dractl.cluster.transport import Watchdog


def test_an_alarm_fires_once_its_time_comes() -> None:
    dog = Watchdog()
    fired = threading.Event()
    dog.call_after(0.01, fired.set)
    assert fired.wait(10)


def test_a_cancelled_alarm_never_fires() -> None:
    dog = Watchdog()
    cancelled, later = threading.Event(), threading.Event()
    dog.cancel(dog.call_after(0.05, cancelled.set))
    dog.call_after(0.2, later.set)  # fires after the cancelled one would have
    assert later.wait(10)
    assert not cancelled.is_set()


def test_alarms_fire_in_the_order_of_their_times_from_one_thread() -> None:
    dog = Watchdog()
    order: list[str] = []
    threads: set[int] = set()
    done = threading.Event()

    def note(name: str) -> None:
        order.append(name)
        threads.add(threading.get_ident())
        if len(order) == 3:
            done.set()

    dog.call_after(0.3, lambda: note("late"))
    dog.call_after(0.1, lambda: note("middle"))  # sooner than the one it waits for: wakes it
    dog.call_after(0.0, lambda: note("now"))
    assert done.wait(10)
    assert order == ["now", "middle", "late"]
    assert len(threads) == 1 and threading.get_ident() not in threads


def test_an_action_that_raises_does_not_stop_the_others() -> None:
    dog = Watchdog()
    fired = threading.Event()

    def boom() -> None:
        raise OSError("the connection is gone")

    dog.call_after(0.0, boom)
    dog.call_after(0.05, fired.set)
    assert fired.wait(10)


def _in_a_forked_child(body: Any) -> int:
    """``body()`` in a forked child (as scripts/fuzz.py runs dractl): its exit status, or -1 when
    it did not end within 30 s (then it is killed)."""
    import os
    import signal
    import time

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os._exit(0 if body() else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


def test_a_forked_child_has_its_own_watchdog() -> None:
    """A child forked after the watchdog's thread started (scripts/fuzz.py forks its runs) arms
    alarms that fire: its own thread, its own lock."""
    from dractl.cluster.transport import WATCHDOG

    fired = threading.Event()
    WATCHDOG.call_after(0.0, fired.set)  # the parent's watchdog thread runs
    assert fired.wait(10)

    def child() -> bool:
        done = threading.Event()
        WATCHDOG.call_after(0.0, done.set)
        return done.wait(10)

    assert _in_a_forked_child(child) == 0
