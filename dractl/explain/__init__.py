"""Explanations of allocations (``dractl explain-allocation``).

Built on the matcher: :mod:`~dractl.explain.engine` runs it per node and turns its
trace into funnels (:mod:`~dractl.explain.funnel`) with plain-words blocking steps
(:mod:`~dractl.explain.suggest`); :mod:`~dractl.io.sources` reads the world
(files, snapshots; a live cluster plugs in as another ``WorldSource``);
:mod:`~dractl.explain.whatif` derives what-if worlds; :mod:`~dractl.explain.bestfit`
ranks feasible allocations by fragmentation.  Engines return data, never print.
"""
