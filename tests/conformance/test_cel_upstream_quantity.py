"""Cases of k8s.io/apiserver/pkg/cel/library/quantity_test.go, run through dractl's CEL engine."""

from __future__ import annotations

import pytest
from cel_upstream import Case, ce, check, not_applicable, params, rt, true, val

NEWER = "mul/div/divInt exist only in a newer Kubernetes than the DRA reference stack"

CASES: list[Case] = [
    val("parse", 'quantity("12Mi")', 'quantity("12Mi")'),
    rt("parseInvalidSuffix", 'quantity("10Mo")', "quantities must match the regular expression"),
    rt("parseInvalidSuffixPassesRegex", 'quantity("10Mm")', "unable to parse quantity's suffix"),
    val("isQuantity", 'isQuantity("20")', "true"),
    val("isQuantity_megabytes", 'isQuantity("20M")', "true"),
    val("isQuantity_mebibytes", 'isQuantity("20Mi")', "true"),
    val("isQuantity_invalidSuffix", 'isQuantity("20Mo")', "false"),
    val("isQuantity_passingRegex", 'isQuantity("10Mm")', "false"),
    ce(
        "isQuantity_noOverload",
        "isQuantity([1, 2, 3])",
        "found no matching overload for 'isQuantity' applied to",
    ),
    val("equality_reflexivity", 'quantity("200M") == quantity("200M")', "true"),
    val(
        "equality_symmetry",
        'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
        "true",
    ),
    val(
        "equality_transitivity",
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") '
        '&& quantity("0.002G") == quantity("2000k")',
        "true",
    ),
    val("inequality", 'quantity("200M") == quantity("0.3G")', "false"),
    val("quantity_less", 'quantity("50M").isLessThan(quantity("50Mi"))', "true"),
    val("quantity_less_obvious", 'quantity("50M").isLessThan(quantity("100M"))', "true"),
    val("quantity_less_false", 'quantity("100M").isLessThan(quantity("50M"))', "false"),
    val("quantity_greater", 'quantity("50Mi").isGreaterThan(quantity("50M"))', "true"),
    val("quantity_greater_obvious", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', "true"),
    val("quantity_greater_false", 'quantity("50M").isGreaterThan(quantity("100M"))', "false"),
    val("compare_equal", 'quantity("200M").compareTo(quantity("0.2G"))', "0"),
    val("compare_less", 'quantity("50M").compareTo(quantity("50Mi"))', "-1"),
    val("compare_greater", 'quantity("50Mi").compareTo(quantity("50M"))', "1"),
    val("add_quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', "true"),
    val("add_int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', "false"),
    val("sub_quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', "true"),
    val("sub_int", 'quantity("50k").sub(20) == quantity("49980")', "true"),
    val("multiply", 'quantity("50k").mul(2) == quantity("100000")', "true", skip=NEWER),
    true(
        "divide_float_result",
        'math.abs(quantity("10000").div(3).asApproximateFloat() - 3333.3333) < 0.0001',
        skip=NEWER,
    ),
    val("divide_scaled", 'quantity("10k").div(2) == quantity("5000")', "true", skip=NEWER),
    val("integer_division", 'quantity("10000").divInt(3) == quantity("3333")', "true", skip=NEWER),
    val("arith_chain_1", 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', "-49980"),
    val("arith_chain", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', "20"),
    val("as_integer", 'quantity("50k").asInteger()', "50000"),
    rt(
        "as_integer_error",
        'quantity("9999999999999999999999999999999999999G").asInteger()',
        "cannot convert value to integer",
    ),
    val("is_integer_false", 'quantity("9999999999999999999999999999999999999G").isInteger()', "false"),
    val("is_integer", 'quantity("50").isInteger()', "true"),
    val("as_float", 'quantity("50.703k").asApproximateFloat()', "50703.0"),
    # library.go documents sign() as a global function
    val("sign_positive", 'sign(quantity("50k"))', "1"),
    val("sign_negative", 'sign(quantity("-50k"))', "-1"),
    val("sign_zero", 'sign(quantity("0"))', "0"),
    ce("sign_not_member", 'quantity("1").sign()', "found no matching overload for 'sign'"),
]


@pytest.mark.parametrize("case", params(CASES))
def test_upstream_quantity(case: Case) -> None:
    check(case)


def test_newer_quantity_functions_do_not_compile_in_dra() -> None:
    # mul/div/divInt came after the DRA reference stack: a selector using them is rejected.
    from dractl.cel import compile_selector
    from dractl.errors import CelCompileError

    newer = not_applicable(CASES)
    assert len(newer) == 4
    for case in newer:
        with pytest.raises(CelCompileError):
            compile_selector(case.expr, env="new")
