"""Inventory views over a world (files, a snapshot or a live cluster): availability, claims,
health and taints.  Pure engines: they return report objects (``to_dict``, ``exit_code``) and
never print; "free", "allocated" and "tainted" are the matcher's answers (see
:mod:`dractl.inventory.core`)."""
