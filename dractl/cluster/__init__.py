"""The live-cluster adapter: the only package that imports ``kubernetes`` (lazily).

:class:`~dractl.cluster.options.ClusterOptions` (plain data) says which cluster and what
scope; :class:`~dractl.cluster.source.ClusterSource` reads it into a World.  Nothing here
ever writes to a cluster.
"""
