"""Write completions/ (bash, zsh, fish) from ``dractl completion SHELL``; tests fail when stale.

Usage: python scripts/gen_completions.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dractl.cli.completion import script  # noqa: E402

FILES = {"bash": "dractl.bash", "zsh": "_dractl", "fish": "dractl.fish"}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for shell, name in FILES.items():
        path = REPO / "completions" / name
        text = script(shell)
        if path.exists() and path.read_text() == text:
            continue
        stale.append(str(path.relative_to(REPO)))
        if not check:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
    if stale:
        print(("stale: " if check else "wrote: ") + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
