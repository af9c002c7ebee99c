"""Shared harness for the upstream CEL test tables (kubernetes/apiserver CEL libraries, cel-go ext).

Each case is data: an expression, what the real code gives for it, and optionally why the case
cannot hold in the DRA environment. Values are checked the way the shared vectors probe them:
the selector ``(<expr>) == <expected>`` must match a dummy device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from dractl.cel import compile_selector
from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.build import device
from dractl.model.objects import Device

Kind = Literal["value", "true", "runtime", "compile"]

DUMMY: Device = device({"name": "probe", "attributes": {"model": {"string": "x"}}}, driver="dra.example.com")


@dataclass(frozen=True)
class Case:
    """One upstream case. ``expect`` is a CEL literal (value), or a regex (runtime/compile)."""

    name: str
    expr: str
    kind: Kind
    expect: str = ""
    skip: str = ""  # why the upstream expectation cannot hold in DRA ("" = it must hold)
    env: Literal["new", "stored"] = "new"


def val(name: str, expr: str, expected: str, skip: str = "") -> Case:
    """``expr`` evaluates to the CEL value written as ``expected``."""
    return Case(name, expr, "value", expected, skip)


def true(name: str, expr: str, skip: str = "") -> Case:
    """``expr`` is a boolean expression that evaluates to true."""
    return Case(name, expr, "true", "", skip)


def rt(name: str, expr: str, pattern: str, skip: str = "") -> Case:
    """Evaluating ``expr`` fails with an error matching ``pattern``."""
    return Case(name, expr, "runtime", pattern, skip)


def ce(name: str, expr: str, pattern: str, skip: str = "") -> Case:
    """Compiling ``expr`` fails with an error matching ``pattern``."""
    return Case(name, expr, "compile", pattern, skip)


def selector_for(case: Case) -> str:
    if case.kind == "value":
        return f"({case.expr}) == {case.expect}"
    if case.kind == "true":
        return case.expr
    # errors: any boolean context works; compare with itself keeps the expression's type free
    return f"({case.expr}) == ({case.expr})" if case.kind == "runtime" else case.expr


def check(case: Case) -> None:
    """Assert that dractl agrees with the upstream expectation for ``case``."""
    expr = selector_for(case)
    if case.kind == "compile":
        try:
            compile_selector(expr, env=case.env)
        except CelCompileError as e:
            assert re.search(case.expect, e.message), f"{case.name}: {e.message!r}"
            return
        raise AssertionError(f"{case.name}: compiled, expected compile error /{case.expect}/")
    try:
        sel = compile_selector(expr, env=case.env)
    except CelCompileError as e:
        raise AssertionError(f"{case.name}: unexpected compile error {e.message}") from e
    if case.kind == "runtime":
        try:
            got = sel.matches(DUMMY)
        except CelRuntimeError as e:
            assert re.search(case.expect, e.message), f"{case.name}: {e.message!r}"
            return
        raise AssertionError(f"{case.name}: evaluated to {got}, expected error /{case.expect}/")
    try:
        assert sel.matches(DUMMY) is True, f"{case.name}: {expr} did not hold"
    except CelRuntimeError as e:
        raise AssertionError(f"{case.name}: unexpected runtime error {e.message}") from e


def params(cases: list[Case]) -> list[object]:
    """pytest parameters for the cases that hold in DRA; the others stay in the tables as data, with
    their reason, and each test module asserts what DRA does for them instead (see not_applicable)."""
    import pytest

    return [pytest.param(c, id=c.name) for c in cases if not c.skip]


def not_applicable(cases: list[Case]) -> list[Case]:
    """The upstream cases whose expectation cannot hold in the DRA reference stack."""
    return [c for c in cases if c.skip]
