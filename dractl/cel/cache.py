"""The owner of CEL's caches: compiled selectors and converted devices.

One :class:`CelCache` is meant to live as long as the run (a command, a scheduling cycle, a
benchmark round) and to be passed explicitly to whoever compiles or evaluates selectors, as
Kubernetes' allocator takes its CEL cache as an argument::

    cache = CelCache()                                    # bounded; see the arguments
    sel = cache.compile(expr, "stored", features)         # Selector; raises CelCompileError
    sel.matches(device)                                   # devices converted once, in this cache
    cache.validate(expr, features)                        # API-server verdict on create, or None

Both parts are bounded least-recently-used maps: ``max_entries`` compiled selectors (compile
errors are remembered too) and ``max_devices`` converted devices (kept alive while cached, so
that identity keys stay valid).  Nothing here is module-level state except :data:`DEFAULT_CACHE`,
the documented default for callers that pass no cache (``compile_selector`` and friends); it is
bounded the same way and :meth:`CelCache.clear` empties it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Literal

from dractl.cel.activation import DeviceActivationCache
from dractl.cel.env import MAX_COST, MAX_EXPRESSION_BYTES
from dractl.cel.program import DEFAULT_COST_LIMIT, Selector, build
from dractl.errors import CelCompileError
from dractl.model.features import Features

if TYPE_CHECKING:  # the model classes load only where objects are built
    from dractl.model.objects import Device

EnvKind = Literal["stored", "new"]
_Key = tuple[str, str, bool, bool]


def env_gates(env: str, features: Features | None) -> tuple[bool, bool]:
    """(list-type attributes, consumable capacity) as the environment declares them: ``stored``
    declares everything; ``new`` follows the gates (None: the default release's defaults)."""
    if env == "stored":
        return True, True
    if env != "new":
        raise ValueError(f"env must be 'stored' or 'new', not {env!r}")
    f = features if features is not None else Features.for_version()
    return f.list_type_attributes, f.consumable_capacity


class CelCache:
    """Compiled selectors and converted devices for one run (both bounded, LRU)."""

    def __init__(self, max_entries: int = 4096, max_devices: int = 65536) -> None:
        if max_entries < 1 or max_devices < 1:
            raise ValueError("CelCache sizes must be at least 1")
        self.max_entries = max_entries
        self.activations = DeviceActivationCache(max_entries=max_devices)
        self._compiled: OrderedDict[_Key, Selector | CelCompileError] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def compile(self, expression: str, env: EnvKind = "stored", features: Features | None = None) -> Selector:
        """The compiled selector (as Kubernetes' ``CompileCELExpression``; no length or cost
        rejection, see :meth:`validate`).  Raises CelCompileError, which is cached as well."""
        list_attrs, consumable = env_gates(env, features)
        key = (expression, env, list_attrs, consumable)
        entry = self._compiled.get(key)
        if entry is None:
            self.misses += 1
            entry = build(expression, env, list_attrs, consumable, activations=self.activations)
            self._compiled[key] = entry
            if len(self._compiled) > self.max_entries:
                self._compiled.popitem(last=False)
        else:
            self.hits += 1
            self._compiled.move_to_end(key)
        if isinstance(entry, CelCompileError):
            raise CelCompileError(entry.message, entry.error_type)
        return entry

    def validate(self, expression: str, features: Features | None = None, env: EnvKind = "new") -> str | None:
        """What API-server validation says about a selector in a new object: TooLong over
        10 KiB, else the compile error, else "too complex, exceeds cost limit"; None if fine."""
        if len(expression.encode("utf-8", "surrogatepass")) > MAX_EXPRESSION_BYTES:
            return f"Too long: may not be more than {MAX_EXPRESSION_BYTES} bytes"
        try:
            sel = self.compile(expression, env, features)
        except CelCompileError as e:
            return e.message
        if sel.max_cost > MAX_COST:
            return "too complex, exceeds cost limit"
        return None

    def matches(self, selector: Selector, device: Device, *, cost_limit: int = DEFAULT_COST_LIMIT) -> bool:
        """``selector.matches(device)`` with the device converted in this cache."""
        return selector.matches(device, cost_limit=cost_limit, activations=self.activations)

    def clear(self) -> None:
        """Forget every compiled selector and converted device."""
        self._compiled.clear()
        self.activations.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._compiled)

    def __repr__(self) -> str:
        return (
            f"CelCache({len(self._compiled)}/{self.max_entries} selectors, "
            f"{len(self.activations)}/{self.activations.max_entries} devices)"
        )


#: The cache used when a caller passes none (``compile_selector``, ``validate_selector``).
DEFAULT_CACHE = CelCache()
