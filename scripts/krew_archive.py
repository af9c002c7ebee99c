"""Build the krew archive of ``kubectl dra`` and keep the manifest's sha256 true.

``python scripts/krew_archive.py [--out DIR]`` writes ``kubectl-dra-vVERSION.zip`` (the launcher
``deploy/krew/kubectl-dra`` and ``LICENSE``) and rewrites ``sha256`` and ``uri`` in
``deploy/krew/dra.yaml`` to match it.  ``--check`` changes nothing and exits 1 when the manifest
does not match the archive this tree builds (CI runs it through tests/cli/test_man_and_plugin.py).

The archive is byte-for-byte reproducible: a zip with stored (uncompressed) members, in a fixed
order, with fixed timestamps and permissions, so its digest depends only on the two files'
contents — not on the machine, the zlib build or the time it was made.  krew accepts zip archives
as it does tar.gz.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "deploy" / "krew" / "dra.yaml"
MEMBERS = (
    ("kubectl-dra", REPO / "deploy" / "krew" / "kubectl-dra", 0o755),
    ("LICENSE", REPO / "LICENSE", 0o644),
)
EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold
URI = "https://github.com/dractl/dractl/releases/download/{v}/kubectl-dra-{v}.zip"


def build(out: Path, version: str) -> Path:
    """Write the archive for ``version`` (``v0.1.0``) into ``out``; return its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"kubectl-dra-{version}.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, source, mode in MEMBERS:
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.create_system = 3  # unix, so that the mode below is honoured on extraction
            info.external_attr = (0o100000 | mode) << 16
            zf.writestr(info, source.read_bytes())
    return path


def manifest_version(text: str) -> str:
    found = re.search(r"^  version: (v\S+)$", text, re.MULTILINE)
    if found is None:
        raise SystemExit("the krew manifest has no spec.version line")
    return found.group(1)


def updated(text: str, version: str, digest: str) -> str:
    text = re.sub(r'^(    sha256: )"[0-9a-f]*"$', rf'\g<1>"{digest}"', text, flags=re.MULTILINE)
    return re.sub(r"^(    uri: )\S+$", rf"\g<1>{URI.format(v=version)}", text, flags=re.MULTILINE)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=REPO / "dist", help="where the archive goes (default dist/)")
    p.add_argument("--check", action="store_true", help="only check that the manifest matches")
    p.add_argument(
        "--manifest", type=Path, default=MANIFEST, help="the krew manifest (default deploy/krew/dra.yaml)"
    )
    args = p.parse_args(argv)
    manifest: Path = args.manifest
    text = manifest.read_text(encoding="utf-8")
    version = manifest_version(text)
    archive = build(args.out, version)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    new = updated(text, version, digest)
    if args.check:
        if new != text:
            print(
                f"{MANIFEST}: sha256/uri do not match {archive.name} (sha256 {digest}); "
                "run python scripts/krew_archive.py",
                file=sys.stderr,
            )
            return 1
        print(f"{archive.name}: sha256 {digest} matches the manifest")
        return 0
    manifest.write_text(new, encoding="utf-8")
    print(f"{archive}: sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
