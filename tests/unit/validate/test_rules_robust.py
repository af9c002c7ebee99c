"""check_object never raises, whatever shape the (schema-invalid) input has, and never mutates it."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_support import claim_obj, class_obj, opts, slice_obj, taint_rule_obj, template_obj

from dractl.validate.rules import check_object

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "a", "A/b", "1Gi", "x.com/y", "-"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "devices",
                    "requests",
                    "exactly",
                    "firstAvailable",
                    "selectors",
                    "cel",
                    "expression",
                    "attributes",
                    "capacity",
                    "value",
                    "requestPolicy",
                    "taints",
                    "driver",
                    "pool",
                    "nodeName",
                    "counters",
                    "consumesCounters",
                    "config",
                    "opaque",
                    "count",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)
BASES = [slice_obj, claim_obj, template_obj, class_obj, taint_rule_obj]


@settings(max_examples=150, deadline=None)
@given(
    base=st.sampled_from(BASES), spec=JSON, status=st.booleans(), version=st.sampled_from(["1.34", "1.37"])
)
def test_any_spec_shape_is_handled(base: Any, spec: Any, status: bool, version: str) -> None:
    obj = base()
    obj["spec"] = spec
    before = copy.deepcopy(obj)
    for finding in check_object(obj, opts(version, status=status)):
        assert finding.rule and finding.message
    assert obj == before


@settings(max_examples=100, deadline=None)
@given(base=st.sampled_from(BASES), leaf=JSON)
def test_any_value_inside_a_valid_object_is_handled(base: Any, leaf: Any) -> None:
    obj = base()
    spec = obj["spec"]
    key = next(iter(spec))
    spec[key] = leaf
    check_object(obj, opts())
