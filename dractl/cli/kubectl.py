"""``kubectl-dra``: dractl as a kubectl plugin (``kubectl dra explain-allocation …``).

kubectl runs any executable named ``kubectl-<name>`` on PATH for ``kubectl <name>``, passing
the remaining words; this console script is dractl's entry point under that name, so every
command, exit code and error line is the same.  The krew manifest is in ``deploy/krew/``.
"""

from __future__ import annotations


def main() -> int:
    """Run dractl with kubectl's arguments (the words after ``kubectl dra``); usage lines
    say ``kubectl dra``."""
    from dractl.cli.app import main as dractl_main

    return dractl_main(prog_name="kubectl dra")


if __name__ == "__main__":  # pragma: no cover
    main()
