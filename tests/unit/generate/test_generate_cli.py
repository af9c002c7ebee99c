"""``dractl generate …`` end to end: the manifest passes ``dractl lint`` at every release, or the
command fails with one line (exit 2) naming the flag or the lint finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[3]
DEMO = str(REPO / "examples" / "demo")
VERSIONS = ("1.34", "1.35", "1.36", "1.37")


def _lint_clean(
    run_cli, tmp_path: Path, text: str, version: str, context: str | None = None, gates: str | None = None
) -> None:
    out = tmp_path / "generated.yaml"
    out.write_text(text)
    args = ["lint", str(out), "--kube-version", version] + (["--snapshot", context] if context else [])
    args += ["--feature-gates", gates] if gates else []
    result = run_cli(args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "no problems found" in result.stdout, result.stdout


def _one_line_usage_error(result) -> None:
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("dractl: error: ") and "Traceback" not in result.stderr
    assert len(lines) <= 2 and (len(lines) == 1 or lines[1].startswith("See 'dractl generate"))


CLAIM = [
    "generate",
    "claim",
    "gpu-pair",
    "--class",
    "gpu.nvidia.com",
    "--count",
    "2",
    "--match-attribute",
    "gpu.nvidia.com/nvlinkDomain",
    "--min-capacity",
    "memory=40Gi",
    "--attr",
    "productName~='A100'",
    "--toleration",
    "gpu.nvidia.com/xid:Exists:NoSchedule",
]


@pytest.mark.parametrize("version", VERSIONS)
def test_claim_lints_clean_against_the_demo_cluster(run_cli, tmp_path: Path, version: str) -> None:
    gates = "DRADeviceTaints=true" if version in ("1.34", "1.35") else None  # tolerations: beta in 1.36
    result = run_cli(
        [*CLAIM, "--kube-version", version, "-f", DEMO] + (["--feature-gates", gates] if gates else [])
    )
    assert result.exit_code == 0, result.stderr
    _lint_clean(run_cli, tmp_path, result.stdout, version, DEMO, gates)
    doc = yaml.safe_load(result.stdout)
    exactly = doc["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly["count"] == 2 and exactly["tolerations"][0]["operator"] == "Exists"
    assert doc["spec"]["devices"]["constraints"] == [
        {"requests": ["gpu"], "matchAttribute": "gpu.nvidia.com/nvlinkDomain"}
    ]


def test_a_field_the_release_would_drop_is_a_usage_error(run_cli) -> None:
    result = run_cli([*CLAIM, "--kube-version", "1.34"])
    _one_line_usage_error(result)
    assert "WARN-DROPPED-FIELD" in result.stderr and "DRADeviceTaints" in result.stderr


@pytest.mark.parametrize("kind", ["claim", "template"])
@pytest.mark.parametrize("version", VERSIONS)
def test_first_available_lints_clean(run_cli, tmp_path: Path, kind: str, version: str) -> None:
    result = run_cli(
        [
            "generate",
            kind,
            "big-or-two",
            "--class",
            "gpu.nvidia.com",
            "--kube-version",
            version,
            "--first-available",
            "count=1,min-capacity=memory=80Gi",
            "--first-available",
            "count=2,min-capacity=memory=40Gi",
            "-f",
            DEMO,
        ]
    )
    assert result.exit_code == 0, result.stderr
    _lint_clean(run_cli, tmp_path, result.stdout, version, DEMO)
    doc = yaml.safe_load(result.stdout)
    spec = doc["spec"]["spec"] if kind == "template" else doc["spec"]
    subs = spec["devices"]["requests"][0]["firstAvailable"]
    assert [s["count"] for s in subs] == [1, 2]
    assert "quantity('80Gi')" in subs[0]["selectors"][0]["cel"]["expression"]


def test_the_generated_claim_is_allocatable_in_the_demo_cluster(run_cli, tmp_path: Path) -> None:
    """The selectors mean what the flags say: a 40Gi A100 fits, an 80Gi one does not exist."""
    for memory, expected in (("40Gi", 0), ("80Gi", 1)):
        result = run_cli(
            [
                "generate",
                "claim",
                "one",
                "--class",
                "gpu.nvidia.com",
                "-n",
                "default",
                "--min-capacity",
                f"memory={memory}",
                "--attr",
                "productName~='A100'",
            ]
        )
        assert result.exit_code == 0, result.stderr
        claim = tmp_path / f"claim-{memory}.yaml"
        claim.write_text(result.stdout)
        explained = run_cli(
            [
                "explain-allocation",
                str(claim),
                "-f",
                DEMO,
                "--ignore-allocations",
                "--ignore-taints",
                "-o",
                "json",
            ]
        )
        assert explained.exit_code == expected, explained.stdout + explained.stderr


@pytest.mark.parametrize("version", VERSIONS)
def test_class_lints_clean(run_cli, tmp_path: Path, version: str) -> None:
    result = run_cli(
        [
            "generate",
            "class",
            "gpu.example.com",
            "--driver",
            "gpu.example.com",
            "--attr",
            "type='gpu'",
            "--kube-version",
            version,
        ]
    )
    assert result.exit_code == 0, result.stderr
    _lint_clean(run_cli, tmp_path, result.stdout, version)


def test_extended_resource_name_needs_a_release_that_serves_it(run_cli) -> None:
    args = [
        "generate",
        "class",
        "gpu.example.com",
        "--driver",
        "gpu.example.com",
        "--extended-resource-name",
        "example.com/gpu",
    ]
    assert run_cli([*args, "--kube-version", "1.37"]).exit_code == 0
    result = run_cli([*args, "--kube-version", "1.35"])
    _one_line_usage_error(result)
    assert "would not pass dractl lint for Kubernetes 1.35" in result.stderr


@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])
def test_like_stamps_partitionable_pools_per_node(run_cli, tmp_path: Path, version: str) -> None:
    like = str(REPO / "examples" / "demo" / "slices-gpu-node-1.yaml")
    result = run_cli(
        [
            "generate",
            "slice",
            "--like",
            like,
            "--count",
            "4",
            "--nodes",
            "kwok-{0..2}",
            "--kube-version",
            version,
            "--feature-gates",
            "DRAPartitionableDevices=true",
        ]
    )
    assert result.exit_code == 0, result.stderr
    _lint_clean(run_cli, tmp_path, result.stdout, version, gates="DRAPartitionableDevices=true")
    docs = list(yaml.safe_load_all(result.stdout))
    assert sorted({d["spec"]["nodeName"] for d in docs}) == ["kwok-0", "kwok-1", "kwok-2"]
    for d in docs:  # devices and counters never share a slice (1.35+)
        assert not ("devices" in d["spec"] and "sharedCounters" in d["spec"])
        assert d["spec"]["pool"]["resourceSliceCount"] == 2
    sets = [
        s["name"]
        for d in docs
        if d["spec"]["nodeName"] == "kwok-0"
        for s in d["spec"].get("sharedCounters", [])
    ]
    assert sets == [f"gpu-{i}-counter-set" for i in range(4)]


def test_like_without_count_copies_the_pool(run_cli, tmp_path: Path) -> None:
    like = str(REPO / "examples" / "demo" / "slices-gpu-node-1.yaml")
    result = run_cli(["generate", "slice", "--like", like, "--nodes", "node-0", "node-1"])  # a shell's {0..1}
    assert result.exit_code == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    template = [d for d in yaml.safe_load_all(Path(like).read_text()) if d]
    assert len(docs) == 2 * len(template)
    assert sum(len(d["spec"].get("devices", [])) for d in docs) == 2 * sum(
        len(d["spec"].get("devices", [])) for d in template
    )
    _lint_clean(run_cli, tmp_path, result.stdout, "1.37")


@pytest.mark.parametrize(
    "suffix, text",
    [
        (".csv", "name,productName,index,capacity.memory\ngpu-0,H100,0,80Gi\ngpu-1,H100,int:1,80Gi\n"),
        (
            ".yaml",
            "driver: gpu.example.com\ncounterSets:\n  gpu-0-set: {memory: 80Gi}\ndevices:\n"
            "- name: gpu-0\n  attributes: {productName: H100, driverVersion: {version: 1.2.3}}\n"
            "  capacity: {memory: 80Gi}\n  consumes: {gpu-0-set: {memory: 80Gi}}\n",
        ),
    ],
)
def test_slices_from_a_device_list(run_cli, tmp_path: Path, suffix: str, text: str) -> None:
    src = tmp_path / f"devices{suffix}"
    src.write_text(text)
    result = run_cli(
        [
            "generate",
            "slice",
            "--from-file",
            str(src),
            "--driver",
            "gpu.example.com",
            "--nodes",
            "node-a,node-b",
        ]
    )
    assert result.exit_code == 0, result.stderr
    _lint_clean(run_cli, tmp_path, result.stdout, "1.37")
    docs = list(yaml.safe_load_all(result.stdout))
    devices = [d for doc in docs for d in doc["spec"].get("devices", [])]
    assert len(devices) == 2 * (2 if suffix == ".csv" else 1)
    if suffix == ".csv":
        assert devices[1]["attributes"]["index"] == {"int": 1}
        assert devices[0]["capacity"]["memory"] == {"value": "80Gi"}


def test_a_big_pool_is_split_into_slices_of_128(run_cli, tmp_path: Path) -> None:
    src = tmp_path / "devices.csv"
    src.write_text("name,index\n" + "".join(f"dev-{i},{i}\n" for i in range(300)))
    result = run_cli(
        ["generate", "slice", "--from-file", str(src), "--driver", "example.com", "--nodes", "n1"]
    )
    assert result.exit_code == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    assert [len(d["spec"]["devices"]) for d in docs] == [128, 128, 44]
    assert {d["spec"]["pool"]["resourceSliceCount"] for d in docs} == {3}
    _lint_clean(run_cli, tmp_path, result.stdout, "1.37")


@pytest.mark.parametrize(
    "version, runtime, api",
    [
        ("1.37", None, "v1"),
        ("1.36", "resource.k8s.io/v1beta2=true", "v1beta2"),
        ("1.35", "resource.k8s.io/v1alpha3=true", "v1alpha3"),
        ("1.34", "api/alpha=true", "v1alpha3"),
    ],
)
def test_taint_rule(run_cli, tmp_path: Path, version: str, runtime: str | None, api: str) -> None:
    args = [
        "generate",
        "taint-rule",
        "--device",
        "gpu.nvidia.com/gpu-node-2/gpu-3",
        "--key",
        "gpu.nvidia.com/xid",
        "--value",
        "79",
        "--effect",
        "NoExecute",
        "--kube-version",
        version,
    ]
    if runtime:
        args += [
            "--runtime-config",
            runtime,
            "--feature-gates",
            "DRADeviceTaints=true,DRADeviceTaintRules=true",
        ]
    result = run_cli(args)
    assert result.exit_code == 0, result.stderr
    doc = yaml.safe_load(result.stdout)
    assert doc["apiVersion"] == f"resource.k8s.io/{api}"
    assert doc["spec"]["deviceSelector"] == {
        "driver": "gpu.nvidia.com",
        "pool": "gpu-node-2",
        "device": "gpu-3",
    }
    assert doc["spec"]["taint"] == {"key": "gpu.nvidia.com/xid", "value": "79", "effect": "NoExecute"}
    if not runtime:
        _lint_clean(run_cli, tmp_path, result.stdout, version)


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36"])
def test_taint_rule_where_no_version_is_served_by_default_is_a_usage_error(run_cli, version: str) -> None:
    result = run_cli(
        ["generate", "taint-rule", "--device", "gpu.nvidia.com", "--key", "k", "--kube-version", version]
    )
    _one_line_usage_error(result)
    assert "serves no version of DeviceTaintRule" in result.stderr and "--runtime-config" in result.stderr


def test_from_discover(run_cli, tmp_path: Path) -> None:
    fixture = REPO / "tests" / "fixtures" / "discover" / "h100-8gpu"
    disc = run_cli(
        [
            "discover",
            "-o",
            "yaml",
            "--nvml-fixture",
            str(fixture / "nvml.json"),
            "--sysfs-root",
            str(fixture / "sys"),
            "--node",
            "node-a",
            "--only",
            "gpu",
        ]
    )
    assert disc.exit_code == 0, disc.stderr
    (tmp_path / "slices.yaml").write_text(disc.stdout)
    result = run_cli(["generate", "class", "--from-discover", str(tmp_path / "slices.yaml")])
    assert result.exit_code == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    classes = [d["metadata"]["name"] for d in docs if d["kind"] == "DeviceClass"]
    claims = [d for d in docs if d["kind"] == "ResourceClaim"]
    assert classes == ["gpu.nvidia.com", "mig.gpu.nvidia.com"] and len(claims) == 2
    assert claims[0]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.nvidia.com"
    _lint_clean(run_cli, tmp_path, result.stdout, "1.37", str(tmp_path / "slices.yaml"))


def test_json_output_is_the_same_document(run_cli) -> None:
    y = run_cli(["generate", "claim", "c", "--class", "gpu.nvidia.com"])
    j = run_cli(["generate", "claim", "c", "--class", "gpu.nvidia.com", "-o", "json"])
    assert j.exit_code == 0 and json.loads(j.stdout) == yaml.safe_load(y.stdout)


@pytest.mark.parametrize(
    "args, message",
    [
        (["claim", "c"], "--class is required"),
        (["claim", "c", "--class", "gpu.nvidia.com", "--all", "--count", "2"], "exclude each other"),
        (["claim", "C", "--class", "gpu.nvidia.com"], "not a valid name"),
        (["claim", "c", "--class", "x", "--attr", "productName=a"], "not fully qualified"),
        (["claim", "c", "--class", "gpu.nvidia.com", "--cel", "device.driver =="], "--cel: CEL"),
        (["claim", "c", "--class", "gpu.nvidia.com", "--cel", "device.driver"], "--cel: CEL"),
        (["claim", "c", "--class", "gpu.nvidia.com", "--toleration", "k:Sometimes"], "neither an operator"),
        (["claim", "c", "--class", "gpu.nvidia.com", "--first-available", "colour=red"], "unknown key"),
        (
            ["claim", "c", "--class", "gpu.nvidia.com", "--count", "2", "--first-available", "count=1"],
            "replaces",
        ),
        (
            ["claim", "c", "--class", "gpu.nvidia.com", "--kube-version", "1.30"],
            "unsupported Kubernetes release 1.30",
        ),
        (["claim", "c", "--class", "gpu.nvidia.com", "-f", "/nonexistent/x.yaml"], "x.yaml"),
        (["slice", "--like", "/nonexistent.yaml", "--nodes", "n"], "nonexistent"),
        (["slice", "--nodes", "n"], "exactly one of"),
        (["slice", "--from-file", "/dev/null", "--nodes", "n{5..1}", "--driver", "d.io"], "bad range"),
        (["taint-rule", "--device", "a//b", "--key", "k"], "DRIVER[/POOL[/DEVICE]]"),
        (["taint-rule", "--device", "d.io", "--key", "k", "--effect", "Evict"], "--effect"),
        (["class", "x"], "give --driver"),
    ],
)
def test_bad_flags_are_one_line_usage_errors(run_cli, args: list[str], message: str) -> None:
    result = run_cli(["generate", *args])
    _one_line_usage_error(result)
    assert message in result.stderr


def test_malformed_device_lists(run_cli, tmp_path: Path) -> None:
    for name, text, message in (
        ("a.csv", "index\n1\n", "'name' column"),
        ("b.csv", "name,index\ngpu-0\n", "b.csv:2"),
        ("c.yaml", "devices: [{name: a, colour: red}]\n", "unknown field 'colour'"),
        ("d.yaml", "devices: [{name: a, capacity: {memory: lots}}]\n", "not a quantity"),
        ("e.yaml", "devices: [\n", "not YAML"),
    ):
        (tmp_path / name).write_text(text)
        result = run_cli(
            ["generate", "slice", "--from-file", str(tmp_path / name), "--driver", "d.io", "--nodes", "n"]
        )
        _one_line_usage_error(result)
        assert message in result.stderr, (name, result.stderr)


# -- random flag combinations ----------------------------------------------------------------------

_NAMES = st.sampled_from(
    [
        "productName",
        "gpu.nvidia.com/productName",
        "index",
        "driverVersion",
        "mig",
        "example.com/model",
        "Bad_Name",
        "x/y",
        "in",
        "uuid",
    ]
)
_OPS = st.sampled_from(["=", "!=", ">=", "<", "~=", "==", ""])
_VALUES = st.one_of(
    st.sampled_from(["'H100'", "1.2.3", "true", "7", "A100.*", "'('", '"it\'s"', ""]), st.text(max_size=6)
)
_ATTR = st.builds(lambda n, o, v: f"{n}{o}{v}" if o else n, _NAMES, _OPS, _VALUES)
_QTY = st.sampled_from(
    ["memory=40Gi", "memory=80Gi", "memory=lots", "cores=8", "memory", "gpu.nvidia.com/memory=1"]
)
_TOL = st.sampled_from(
    [
        "gpu.nvidia.com/xid:Exists:NoSchedule",
        "k=v:NoExecute",
        "k=v:Exists",
        ":Exists",
        "bad key:Exists",
        "k:Equal:None",
    ]
)
_ALT = st.builds(
    lambda c, q: ",".join(p for p in (c, q) if p),
    st.sampled_from(["count=1", "count=2", "all", "count=x", ""]),
    st.sampled_from(["min-capacity=memory=40Gi", "attr=index>=1", "cel=true", ""]),
)


@st.composite
def _claim_args(draw: st.DrawFn) -> list[str]:
    args = [
        "generate",
        draw(st.sampled_from(["claim", "template"])),
        draw(st.sampled_from(["c1", "gpu-x", "Bad"])),
    ]
    if draw(st.booleans()):
        args += ["--class", draw(st.sampled_from(["gpu.nvidia.com", "mig.nvidia.com", "nope"]))]
    for flag, strategy in (
        ("--attr", _ATTR),
        ("--min-capacity", _QTY),
        ("--toleration", _TOL),
        ("--first-available", _ALT),
        ("--capacity-request", _QTY),
        ("--match-attribute", _NAMES),
        ("--cel", st.sampled_from(["device.driver == 'gpu.nvidia.com'", "1 +", "true"])),
    ):
        for value in draw(st.lists(strategy, max_size=2)):
            args += [flag, value]
    if draw(st.booleans()):
        args += draw(st.sampled_from([["--count", "2"], ["--all"], ["--count", "0"], ["--admin-access"]]))
    args += ["--kube-version", draw(st.sampled_from(VERSIONS))]
    return args


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_claim_args())
def test_random_flags_give_a_clean_manifest_or_a_one_line_usage_error(
    run_cli, tmp_path: Path, args: list[str]
) -> None:
    result = run_cli([*args, "-f", DEMO])
    if result.exit_code != 0:
        _one_line_usage_error(result)
        return
    _lint_clean(run_cli, tmp_path, result.stdout, args[args.index("--kube-version") + 1], DEMO)


# -- --interactive ----------------------------------------------------------------------------------


def test_interactive_offers_the_cluster_and_says_where_the_claim_fits(run_cli, tmp_path: Path) -> None:
    answers = "mine\n\n1\n1\nproductName~=A100\n\nmemory=40Gi\n\ny\n"
    result = run_cli(["generate", "claim", "--interactive", "-f", DEMO], input=answers)
    assert result.exit_code == 0, result.stderr
    assert "1) gpu.nvidia.com" in result.stderr  # classes offered
    assert "productName: 'NVIDIA A100-SXM4-40GB' (20)" in result.stderr  # values with device counts
    assert "memory: " in result.stderr and "dra.net/mtu" not in result.stderr  # the class's driver only
    assert "Fits on 1 node(s): gpu-node-1" in result.stderr
    doc = yaml.safe_load(result.stdout)
    assert doc["metadata"] == {"name": "mine", "namespace": "default"}
    exactly = doc["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly["deviceClassName"] == "gpu.nvidia.com" and exactly["count"] == 1
    assert "matches('A100')" in exactly["selectors"][0]["cel"]["expression"]
    _lint_clean(run_cli, tmp_path, result.stdout, "1.37", DEMO)


def _interactive_error(result) -> None:
    """Prompts precede it on stderr; the error itself is one line, then the --help hint."""
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    tail = result.stderr.rstrip().splitlines()[-1:]
    assert tail == ["See 'dractl generate claim --help'."]
    assert result.stderr.count("dractl: error: ") == 1


def test_interactive_answer_no_writes_nothing(run_cli) -> None:
    result = run_cli(["generate", "claim", "x", "--interactive", "-f", DEMO], input="\n1\n1\n\n\nn\n")
    _interactive_error(result)
    assert "not written" in result.stderr


def test_interactive_bad_answer_is_a_usage_error(run_cli) -> None:
    result = run_cli(
        ["generate", "claim", "x", "--interactive", "-f", DEMO], input="\n1\n1\nBad_Domain/x=1\n\n\n"
    )
    _interactive_error(result)
    assert "DNS subdomain" in result.stderr
