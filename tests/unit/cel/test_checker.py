"""Compile errors exactly as the DRA compiler reports them."""

from __future__ import annotations

import pytest

from dractl.cel import compile_selector
from dractl.errors import CelCompileError
from dractl.model.features import Features


def error_of(expr: str, env: str = "stored", features: Features | None = None) -> str:
    with pytest.raises(CelCompileError) as info:
        compile_selector(expr, env=env, features=features)  # type: ignore[arg-type]
    return info.value.message


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (
            'Device.driver == "x"',
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'Device' "
            "(in container '')\n | Device.driver == \"x\"\n | ^",
        ),
        ("device.drivers == 1", "undefined field 'drivers'"),
        ('1 != "1"', "found no matching overload for '_!=_' applied to '(int, string)'"),
        (
            'quantity("1").compareTo(1) == 0',
            "found no matching overload for 'compareTo' applied to 'kubernetes.Quantity.(int)'",
        ),
        (
            'quantity("1") > quantity("2")',
            "found no matching overload for '_>_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'",
        ),
        ("device.driver", "must evaluate to bool or the unknown type, not string"),
        ("device", "must evaluate to bool or the unknown type, not kubernetes.DRADevice"),
        ('[1, "a"].size() == 2', "expected type 'int' but found 'string'"),
        ("[1, 2].exists(x, x)", "expected type 'bool' but found 'int'"),
        ('"abc".matches("[")', "invalid matches argument"),
        ('duration("1000000000000h") > duration("1h")', "invalid duration argument"),
        (
            '"%d".format(["x"]) == ""',
            "error during formatting: decimal clause can only be used on integers, was given string",
        ),
        ("math.greatest(1, 2) == 2", "undeclared reference to 'math'"),
        ("device.driver.size", "type 'string' does not support field selection"),
        ('"abc".reverse() == "cba"', "found no matching overload for 'reverse' applied to 'string.()'"),
        (
            'quantity("1").sign() == 1',
            "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'",
        ),
    ],
)
def test_compile_errors(expr: str, message: str) -> None:
    assert message in error_of(expr)


def test_program_instantiation_errors_are_internal() -> None:
    with pytest.raises(CelCompileError) as info:
        compile_selector('int("x") == 1')
    assert info.value.message == "program instantiation failed: type conversion error from 'string' to 'int'"
    assert info.value.error_type == "InternalError"
    with pytest.raises(CelCompileError) as info:
        compile_selector('"abc".findAll("[") == []')
    assert info.value.message.startswith("program instantiation failed: error parsing regexp")


def test_new_environment_follows_the_gates() -> None:
    expr = 'device.attributes["dra.example.com"].ids.includes(3)'
    compile_selector(expr)  # stored: always declared
    assert "undeclared reference to 'includes'" in error_of(expr, "new", Features())
    compile_selector(expr, env="new", features=Features(list_type_attributes=True))
    rng = 'device.attributes["dra.example.com"].ids.exists(i, i == 2)'
    assert "expression of type 'any' cannot be range of a comprehension" in error_of(rng, "new", Features())
    ama = "device.allowMultipleAllocations == false"
    assert "undefined field 'allowMultipleAllocations'" in error_of(ama, "new", Features())
    compile_selector(ama, env="new", features=Features(consumable_capacity=True))


def test_dyn_results_only_with_list_type_attributes() -> None:
    compile_selector('device.attributes["x"].flags[0]')
    assert "not dyn" in error_of('device.attributes["x"].flags[0]', "new", Features())
    compile_selector('device.attributes["x"].cores', env="new", features=Features())  # type 'any'


def test_all_kubernetes_libraries_are_declared() -> None:
    for expr in [
        'isQuantity("1Gi") && quantity("1").add(1).isInteger() && sign(quantity("-1")) == -1',
        'semver("v1.2", true).major() == 1 && isSemver("1.0.0", false)',
        '"a,b".split(",").join("-") == "a-b" && "x".lowerAscii().upperAscii() == "X"',
        "sets.contains([1, 2], [1]) && sets.intersects([1], [1]) && sets.equivalent([1], [1])",
        "[3, 1].sort() == [1, 3] && [[1], [2, 3]].flatten().size() == 3 && lists.range(3).size() == 3",
        "[1, 2].isSorted() && [1, 2].sum() == 3 && [1, 2].max() == 2 && [1, 2].indexOf(2) == 1",
        '"a1b2".find("[0-9]") == "1" && "a1b2".findAll("[0-9]").size() == 2',
        'url("https://x.io:8/p").getPort() == "8" && isURL("https://x")',
        'ip("10.0.0.1").family() == 4 && cidr("10.0.0.0/8").containsIP("10.1.2.3") && isCIDR("::/0")',
        'format.dns1123Label().validate("ok").hasValue() == false',
        '"%s-%d".format([dyn("a"), dyn(1)]) == "a-1" && strings.quote("x") == "\\"x\\""',
        "cel.bind(x, 1, x + 1 == 2) && {1: 2}.transformMap(k, v, v * 2)[1] == 4",
        "optional.of(1).orValue(2) == 1 && [1].all(i, v, v > i)",
    ]:
        compile_selector(expr)
