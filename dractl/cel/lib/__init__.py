"""The Kubernetes CEL libraries at run time, one module per library as in the apiserver's
``pkg/cel/library/``: :mod:`quantity`, :mod:`semver`, :mod:`ordering` (the comparisons both
declare), :mod:`url`, :mod:`net` (IP and CIDR), :mod:`format` (named formats) and :mod:`regex`
(``matches``/``find``/``findAll`` on RE2 with Go's syntax)."""
