"""Shared counters (DRAPartitionableDevices): what is left in each counter set.

``available`` is computed once per pool from the counter sets minus what committed
allocations consume (it may go negative: then nothing fits).  ``CounterBook``
tracks what in-flight devices consume; ``reserve`` either takes a device's
counters or leaves the book untouched, and ``release`` gives them back.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from dractl.matcher.pools import CounterSets, Pool, RawSets, exact
from dractl.model.objects import Device
from dractl.model.quantity import Quantity


def available(pool: Pool, is_allocated: Callable[[str], bool]) -> CounterSets:
    """Counter totals minus the consumption of committed allocations in the whole pool."""
    left = {name: dict(counters) for name, counters in pool.counter_sets.items()}
    for s in (*pool.slices, *pool.other_slices):
        for d in s.devices:
            if not d.consumes_counters or not is_allocated(f"{s.driver}/{s.pool.name}/{d.name}"):
                continue
            for use in d.consumes_counters:
                counters = left.get(use.counter_set, {})
                for name, q in use.counters.items():
                    if name in counters:
                        counters[name] -= exact(q)
    return left


Uses = tuple[tuple[str, str, int | Fraction], ...]
"""A device's counter consumption: (counter set, counter, exact amount) in order."""


def uses(device: Device) -> Uses:
    """The device's consumption with exact amounts (ints where they are whole numbers, which
    compare and add far faster than Fractions and give the same answers)."""
    out: list[tuple[str, str, int | Fraction]] = []
    for use in device.consumes_counters:
        for name, q in use.counters.items():
            out.append((use.counter_set, name, amount(q)))
    return tuple(out)


def amount(q: Quantity) -> int | Fraction:
    """``whole(exact(q))``, a whole number without a Fraction first (~5 us each saved)."""
    return q.unscaled * 10**q.scale if q.scale >= 0 else whole(exact(q))


def whole(v: Fraction) -> int | Fraction:
    """``v`` as an int when it is a whole number (cheaper to add and compare), else as is."""
    return v.numerator if v.denominator == 1 else v


class Left:
    """What a pool name's counter sets have left, in the form reservations read it: the
    exact amount per (counter set, counter), ints where whole numbers, and how many are
    negative (over-committed: then no device of the pool fits).

    From :meth:`totals`, a counter set's amounts are made when the set is first read
    (:meth:`fill`): an allocation that tries one device of a node with many counter sets
    reads one of them.  ``amounts`` then holds only the sets read so far; :meth:`take` and
    :meth:`sets` see every set."""

    __slots__ = ("_pending", "amounts", "negative")

    def __init__(self, available: CounterSets) -> None:
        self.amounts: dict[tuple[str, str], int | Fraction] = {
            (set_name, name): whole(v)
            for set_name, counters in available.items()
            for name, v in counters.items()
        }
        self.negative = sum(1 for v in self.amounts.values() if v < 0)
        self._pending: RawSets | None = None

    @classmethod
    def totals(cls, pool: Pool) -> Left:
        """What is left when nothing is allocated: ``Left(pool.counter_sets)``, from the
        declared quantities without a Fraction each, each set when first read (a negative
        total, which over-commits the pool from the start, makes them all at once)."""
        left = cls.__new__(cls)
        left.amounts = {}
        left.negative = 0
        left._pending = pool.counter_totals
        if _any_negative(pool.counter_totals):
            left._complete()
        return left

    def fill(self, key: tuple[str, str]) -> int | Fraction | None:
        """``amounts[key]``, or None when the pool name's sets have no such counter: a set
        :meth:`totals` has not made yet is made now."""
        pending = self._pending
        if pending is None:
            return None
        set_name = key[0]
        counters = pending.get(set_name)
        if counters is None or (set_name, next(iter(counters), "")) in self.amounts:
            return None  # no such set, or made already (it lacks the counter)
        amounts = self.amounts
        for name, q in counters.items():
            amounts[(set_name, name)] = amount(q)
        return amounts.get(key)

    def _complete(self) -> None:
        """Make every set :meth:`totals` left for later, in declared order (read-only until
        then: the amounts made so far are the totals)."""
        pending = self._pending
        if pending is None:
            return
        self._pending = None
        self.amounts = {
            (set_name, name): amount(q)
            for set_name, counters in pending.items()
            for name, q in counters.items()
        }
        self.negative = sum(1 for v in self.amounts.values() if v < 0)

    def take(self, used: Uses) -> None:
        """Take a newly allocated device's consumption (counters the sets lack are ignored,
        as :func:`available` ignores them)."""
        self._complete()
        amounts = self.amounts
        for set_name, name, amount in used:
            key = (set_name, name)
            before = amounts.get(key)
            if before is None:
                continue
            after = amounts[key] = before - amount
            self.negative += (after < 0) - (before < 0)

    def sets(self) -> CounterSets:
        """The same as :func:`available` returns."""
        self._complete()
        out: CounterSets = {}
        for (set_name, name), v in self.amounts.items():
            out.setdefault(set_name, {})[name] = Fraction(v)
        return out


def _any_negative(totals: RawSets) -> bool:
    for counters in totals.values():
        for q in counters.values():
            if q.unscaled < 0:
                return True
    return False


class _Ledger:
    """One pool name's counters during an allocation: what is left after committed
    allocations (``left``, read only), what in-flight devices take (``taken``), and how many
    counters are over (``left < taken``): a reservation succeeds when none is."""

    __slots__ = ("fill", "left", "over", "taken")

    def __init__(self, left: Left) -> None:
        self.left = left.amounts
        self.fill = left.fill  # a set of ``left`` not made yet (see Left.totals)
        self.taken: dict[tuple[str, str], int | Fraction] = {}
        self.over = left.negative


class CounterBook:
    """In-flight counter consumption, per pool name and counter set.  Kubernetes keys its
    counter bookkeeping by the pool's name alone (not the driver), so pools of two drivers
    that share a name share their counters; so does dractl.

    ``reserve`` takes a device's counters when every counter of the pool stays within what
    is available (kept as a count of counters that are over, updated per counter touched:
    the same answer as checking every counter, in time proportional to the device's use)."""

    def __init__(
        self,
        available_for: Callable[[Pool], CounterSets | Left],
        uses_of: Callable[[Device], Uses] = uses,
    ) -> None:
        self._available_for = available_for
        self._uses_of = uses_of
        self._books: dict[str, _Ledger] = {}

    def _ledger(self, pool: Pool) -> _Ledger:
        book = self._books.get(pool.name)
        if book is None:
            left = self._available_for(pool)
            book = self._books[pool.name] = _Ledger(left if isinstance(left, Left) else Left(left))
        return book

    def reserve(self, pool: Pool, device: Device) -> bool:
        """Take the device's counters if every counter of the pool stays within what
        is available; otherwise change nothing and return False."""
        book = self._ledger(pool)
        used = self._uses_of(device)
        self._apply(book, used, 1)
        if book.over:
            self._apply(book, used, -1)
            return False
        return True

    def release(self, pool: Pool, device: Device) -> None:
        self._apply(self._ledger(pool), self._uses_of(device), -1)

    @staticmethod
    def _apply(book: _Ledger, used: Uses, sign: int) -> None:
        left, taken = book.left, book.taken
        for set_name, name, amount in used:
            key = (set_name, name)
            before = taken.get(key, 0)
            after = taken[key] = before + amount if sign > 0 else before - amount
            have = left.get(key)
            if have is None:
                have = book.fill(key)
                if have is None:
                    continue  # not a counter of this pool name's sets: never checked
            was_over, is_over = have < before, have < after
            if was_over != is_over:
                book.over += 1 if is_over else -1
