"""Malformed claims never crash explain-allocation: exit 0, 1 or 2 and never an internal error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DEMO = str(Path(__file__).resolve().parents[3] / "examples" / "demo")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.text(max_size=12),
    st.sampled_from(["gpu.nvidia.com", "mig.nvidia.com", "All", "ExactCount", "1Gi", "x/y"]),
)
values = st.recursive(
    scalars,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=8), kids, max_size=3)
    ),
    max_leaves=8,
)
requests = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["gpu", "a", "GPU", ""])},
        optional={
            "exactly": st.fixed_dictionaries(
                {},
                optional={
                    "deviceClassName": st.sampled_from(["gpu.nvidia.com", "mig.nvidia.com", "nope", ""]),
                    "count": st.integers(-1, 40),
                    "allocationMode": st.sampled_from(["ExactCount", "All", "Other"]),
                    "selectors": st.lists(
                        st.fixed_dictionaries(
                            {
                                "cel": st.fixed_dictionaries(
                                    {
                                        "expression": st.sampled_from(
                                            [
                                                "true",
                                                "device.attributes['gpu.nvidia.com'].nope == 1",
                                                "1 +",
                                                "device.driver",
                                            ]
                                        )
                                    }
                                )
                            }
                        ),
                        max_size=2,
                    ),
                    "tolerations": st.lists(values, max_size=2),
                },
            ),
            "firstAvailable": st.lists(values, max_size=2),
            "junk": values,
        },
    ),
    max_size=3,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reqs=requests, constraints=st.lists(values, max_size=2))
def test_malformed_claims_never_crash(
    run_cli: Any, tmp_path: Path, reqs: list[Any], constraints: list[Any]
) -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "fuzz"},
        "spec": {"devices": {"requests": reqs, "constraints": constraints}},
    }
    path = tmp_path / "claim.yaml"
    path.write_text(yaml.safe_dump(claim))
    result = run_cli(["explain-allocation", str(path), "-f", DEMO, "-o", "json"])
    assert result.exit_code in (0, 1, 2), result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
