"""StreamCheck: validation one document at a time (issue 11, memory) gives the report the
in-memory engine gives, and keeps no document once it is checked."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from dractl.io.loader import DocStream, load_paths
from dractl.validate.engine import check
from dractl.validate.options import ValidateOptions
from dractl.validate.rules.xindex import Entry, new_cache
from dractl.validate.stream import StreamCheck

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared"
INPUTS = [
    ROOT / "examples" / "demo",
    ROOT / "examples" / "capacity",
    ROOT / "tests" / "golden" / "lint",
    SHARED / "corpus",
    SHARED / "realworld",
]


def _report(report: Any) -> Any:
    return report.to_dict()


@pytest.mark.parametrize("cross", [False, True], ids=["validate", "lint"])
@pytest.mark.parametrize("where", INPUTS, ids=lambda p: p.name)
def test_streamed_report_is_the_in_memory_report(where: Path, cross: bool) -> None:
    opts = ValidateOptions(kube_version="1.37")
    loaded = load_paths([str(where)])
    expected = check(loaded.docs, opts, input_errors=loaded.errors, files=loaded.files, cross=cross)
    stream = DocStream([str(where)])
    checker = StreamCheck(opts, cross=cross).add_all(stream)
    got = checker.report(input_errors=stream.result.errors, files=stream.result.files)
    assert expected.objects, where  # the inputs hold objects: the comparison means something
    assert _report(got) == _report(expected)


def test_context_objects_are_only_read(tmp_path: Path) -> None:
    """A class known only from the context silences ADV-CLASS-EXISTS, streamed or not."""
    claim = tmp_path / "claim.yaml"
    claim.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\n"
        "spec:\n  devices:\n    requests:\n    - name: r\n      exactly: {deviceClassName: gpu}\n"
    )
    ctx = tmp_path / "ctx.yaml"
    ctx.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n")
    opts = ValidateOptions()
    alone = StreamCheck(opts, cross=True).add_all(DocStream([str(claim)])).report()
    assert "ADV-CLASS-EXISTS" in {f.rule for f in alone.findings}
    both = StreamCheck(opts, cross=True).add_all(DocStream([str(claim)]), DocStream([str(ctx)])).report()
    assert "ADV-CLASS-EXISTS" not in {f.rule for f in both.findings}
    assert [o.name for o in both.objects] == ["c"]


@pytest.mark.parametrize("cross", [False, True])
def test_no_document_is_kept(cross: bool) -> None:
    docs = load_paths([str(ROOT / "examples" / "demo")]).docs
    assert len(docs) > 5
    refs = [weakref.ref(d) for d in docs]
    checker = StreamCheck(ValidateOptions(), cross=cross)
    checker.add_all(iter(docs))
    del docs
    gc.collect()
    assert all(r() is None for r in refs), "a checked document is still referenced"
    report = checker.report()
    assert report.objects


def test_packed_entry_unpacks_the_same_object() -> None:
    cache = new_cache()
    obj = {"kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"devices": [{"name": "d", "x": 1.5}]}}
    entries = [Entry.packed(None, obj, True, cache) for _ in range(100)]  # type: ignore[arg-type]
    assert all(e.obj == obj for e in entries)
    assert entries[0].kind == "ResourceSlice" and entries[0].name == "s"
    assert entries[0]._obj is None and entries[0]._packed is not None  # really packed
    assert len(cache._objs) <= cache.KEEP


def test_unmarshalable_objects_stay_unpacked() -> None:
    obj = {"kind": "K", "metadata": {"name": "n"}, "spec": {"x": object()}}
    entry = Entry.packed(None, obj, True, new_cache())  # type: ignore[arg-type]
    assert entry.obj is obj


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_cli_release_from_a_snapshot_given_last(run_cli: Any, tmp_path: Path, command: str) -> None:
    """The header of the last input sets the release of every object, the first ones included."""
    (tmp_path / "a.yaml").write_text(
        "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n"
    )
    (tmp_path / "snap.yaml").write_text(
        "apiVersion: dractl/v1alpha1\nkind: Snapshot\nserverVersion: v1.34.1\n"
    )
    result = run_cli([command, "-o", "json", str(tmp_path / "a.yaml"), str(tmp_path / "snap.yaml")])
    import json

    doc = json.loads(result.stdout)
    assert doc["summary"]["kubeVersion"] == "1.34", result.stderr
