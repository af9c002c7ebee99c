"""What the console script's process keeps alive until it ends.

:func:`dractl.cli.app.main` without arguments is the console script: it ends its process with
``os._exit`` (see ``app._end_now``), and whatever is still alive then goes back to the system
with the process's memory at once.  A command can leave its big heap (a cluster's world) for
that end instead of freeing it object by object.  Any other caller of ``main`` (tests, tools
that embed dractl) keeps nothing.
"""

from __future__ import annotations

_KEPT: list[object] | None = None  # None: not the console script's process


def keep_until_exit(obj: object) -> None:
    """In the console script's process: keep ``obj`` alive until the process ends — freeing a
    5,000-node world object by object takes ~0.1 s.  Anywhere else: nothing (``obj`` is freed
    when its last user lets it go, as ever)."""
    if _KEPT is not None:
        _KEPT.append(obj)


def ends_with_exit() -> None:
    """Called by ``main()`` when it is the console script: from now on objects are kept."""
    global _KEPT
    _KEPT = []
