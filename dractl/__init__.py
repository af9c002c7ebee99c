"""dractl: a toolkit for Kubernetes Dynamic Resource Allocation (DRA)."""

__version__ = "0.1.0.dev0"
