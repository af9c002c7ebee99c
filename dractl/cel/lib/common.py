"""Helpers shared by the Kubernetes CEL libraries."""

from __future__ import annotations

from typing import Any

from dractl.cel.values import EvalError, type_name


def sig_err(fn: str, *args: Any) -> EvalError:
    """cel-go's ``no such overload`` for a call whose arguments match no signature."""
    return EvalError(f"no such overload: {fn}({', '.join(type_name(a) for a in args)})")
