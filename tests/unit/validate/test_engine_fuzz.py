"""Property tests: whatever a document holds, the engine returns findings, never raises, and
every finding is well-formed."""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.model.objects import Origin
from dractl.validate import engine
from dractl.validate.findings import ERROR_TYPES, Severity
from dractl.validate.options import ValidateOptions

RULE = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=25,
)
KINDS = [
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "DeviceClass",
    "DeviceTaintRule",
    "ResourcePoolStatusRequest",
    "Pod",
    "Namespace",
    "ResourceClass",
]
VERSIONS = [
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1alpha3",
    "resource.k8s.io/v1alpha2",
    "v1",
    "apps/v1",
]
FIELDS = ["spec", "status", "metadata", "devices", "pool", "requests", "exactly", "capacity", "selectors"]


class Doc:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.origin = Origin("fuzz.yaml", 0)
        self.duplicate_keys: tuple[tuple[str, int, int], ...] = ()

    def position(self, path: str = "") -> tuple[int | None, int | None]:
        return (len(path) + 1, 1)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    raw: dict[str, Any] = draw(
        st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), values, max_size=4)
    )
    if draw(st.booleans()):
        raw["apiVersion"] = draw(st.sampled_from(VERSIONS) | scalars)
    if draw(st.booleans()):
        raw["kind"] = draw(st.sampled_from(KINDS) | scalars)
    return raw


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from(["1.34", "1.35", "1.36", "1.37"]), st.booleans(), st.booleans())
def test_engine_never_raises(raw: dict[str, Any], kube: str, lenient: bool, status: bool) -> None:
    before = copy.deepcopy(raw)
    result, findings = engine.check_doc(
        Doc(raw), ValidateOptions(kube_version=kube, lenient=lenient, status=status)
    )
    assert raw == before
    assert result.errors == sum(f.severity is Severity.ERROR for f in findings)
    for f in findings:
        assert RULE.match(f.rule), f.rule
        assert f.message and "\n" not in f.message
        assert f.error_type is None or f.error_type in ERROR_TYPES
        assert f.file == "fuzz.yaml" and f.line is not None
