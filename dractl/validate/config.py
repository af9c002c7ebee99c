"""The ``.dractl.yaml`` config file: rule selection, per-path excludes and defaults for CI.

Found upward from the working directory (the first ``.dractl.yaml`` or ``.dractl.yml`` in the
folder or a parent, stopping at the file system root), or given with ``--config FILE``.
Command-line flags win over the file.  Example::

    kubeVersion: "1.36"                    # default --kube-version (1.36, v1.36, 1.36.2 …)
    runtimeConfig: resource.k8s.io/v1beta2=true   # default --runtime-config (string or list)
    featureGates: {DRAListTypeAttributes: true}   # default --feature-gates (mapping or "A=true,B=false")
    classesFrom: [platform/deviceclasses.yaml]    # default --classes-from (relative to this file)
    rules:
      disable: [ADV-CLASS-EXISTS, "LINT-SELECTOR-*"]   # never reported (like --skip)
      enable: [LINT-SELECTOR-NO-MATCH]                 # taken back out of disable
      only: []                                          # when set, nothing else is reported
    exclude:
      - path: charts/*/tests/**                # relative to this file; * also crosses /
        rules: [LINT-*]                        # omitted: every rule

Unknown keys and wrong types are an :class:`~dractl.errors.InputError` naming the file, line and
key (a typo must not silently turn a check off).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dractl.errors import InputError, SourcePos
from dractl.validate.suppress import Exclude, Policy, split_rules

NAMES = (".dractl.yaml", ".dractl.yml")
_TOP = {"kubeVersion", "runtimeConfig", "featureGates", "classesFrom", "rules", "exclude"}
_RULES = {"disable", "enable", "only"}
_EXCLUDE = {"path", "rules"}
MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True)
class Config:
    """A parsed config file (``path`` is None for "no file").  Relative paths in it are
    already made relative to the current directory's view (joined with the file's folder)."""

    path: str | None = None
    kube_version: str | None = None
    runtime_config: tuple[str, ...] = ()
    feature_gates: str | None = None
    classes_from: tuple[str, ...] = ()
    policy: Policy = field(default_factory=Policy)


def find(start: str | Path | None = None) -> Path | None:
    """The nearest ``.dractl.yaml``/``.dractl.yml`` in ``start`` (default: the cwd) or above."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def load(explicit: str | None = None, start: str | Path | None = None) -> Config:
    """``--config FILE`` when given (InputError when it cannot be read), else the file found by
    :func:`find`, else an empty :class:`Config`."""
    path = Path(explicit) if explicit else find(start)
    if path is None:
        return Config()
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read config file: {e.strerror or e}", SourcePos(str(path))) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise InputError(f"config file larger than {MAX_CONFIG_BYTES} bytes", SourcePos(str(path)))
    return parse(data.decode("utf-8", errors="replace"), str(path))


def parse(text: str, file: str) -> Config:
    """Parse config text; ``file`` names it in errors and anchors its relative paths."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(e, "problem", None) or e
        raise InputError(f"invalid YAML: {problem}", SourcePos(file, 0, line)) from None
    lines = _key_lines(node)
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InputError(
            "the config file must be a mapping (kubeVersion, rules, exclude, …)", SourcePos(file, 0, 1)
        )
    base = str(Path(file).parent)

    def fail(key: str, message: str) -> InputError:
        line = lines.get(key) or lines.get(key.split(".")[0].split("[")[0])
        return InputError(message, SourcePos(file, 0, line), key)

    _unknown(raw, _TOP, "", fail)
    rules = raw.get("rules") or {}
    if not isinstance(rules, Mapping):
        raise fail("rules", "expected a mapping with disable, enable and only")
    _unknown(rules, _RULES, "rules.", fail)
    excludes = []
    for i, item in enumerate(_list(raw.get("exclude"), "exclude", fail)):
        where = f"exclude[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str) or not item["path"].strip():
            raise fail(where, "expected a mapping with a path (and optional rules)")
        _unknown(item, _EXCLUDE, f"{where}.", fail)
        only_rules = tuple(split_rules(_strings(item.get("rules"), f"{where}.rules", fail)))
        excludes.append(Exclude(item["path"].strip(), only_rules, base, f"{Path(file).name}: exclude"))
    source = Path(file).name
    lists = {k: split_rules(_strings(rules.get(k), f"rules.{k}", fail)) for k in _RULES}
    policy = Policy(
        skip=tuple((p, f"{source} rules.disable") for p in lists["disable"]),
        only=tuple((p, f"{source} rules.only") for p in lists["only"]),
        enable=tuple(lists["enable"]),
        excludes=tuple(excludes),
    )
    return Config(
        path=file,
        kube_version=_scalar(raw.get("kubeVersion"), "kubeVersion", fail),
        runtime_config=tuple(_strings(raw.get("runtimeConfig"), "runtimeConfig", fail)),
        feature_gates=_gates(raw.get("featureGates"), fail),
        classes_from=tuple(
            str(Path(base) / p) if not Path(p).is_absolute() else p
            for p in _strings(raw.get("classesFrom"), "classesFrom", fail)
        ),
        policy=policy,
    )


def _key_lines(node: Any, prefix: str = "") -> dict[str, int]:
    """1-based line of every top-level and ``rules.`` key (for errors)."""
    out: dict[str, int] = {}
    if getattr(node, "id", "") != "mapping":
        return out
    for key, value in node.value:
        name = f"{prefix}{key.value}"
        out[name] = key.start_mark.line + 1
        if key.value == "rules" and not prefix:
            out.update(_key_lines(value, "rules."))
    return out


def _unknown(raw: Mapping[str, Any], allowed: set[str], prefix: str, fail: Any) -> None:
    for key in raw:
        if key not in allowed:
            near = sorted(allowed, key=lambda a: _distance(str(key).lower(), a.lower()))[0]
            raise fail(f"{prefix}{key}", f"unknown key (did you mean {prefix}{near}?)")


def _distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _list(value: Any, key: str, fail: Any) -> Sequence[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise fail(key, "expected a list")
    return value


def _strings(value: Any, key: str, fail: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = _list(value, key, fail)
    if not all(isinstance(v, str) for v in items):
        raise fail(key, "expected strings")
    return list(items)


def _scalar(value: Any, key: str, fail: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise fail(key, 'expected a version such as "1.36"')
    return str(value)


def _gates(value: Any, fail: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and all(isinstance(v, bool) for v in value.values()):
        return ",".join(f"{k}={'true' if v else 'false'}" for k, v in value.items())
    raise fail("featureGates", "expected a mapping of gate names to true/false")


def runtime_for(flags: Sequence[str], config: Config, served: Sequence[str] | None = None) -> Any:
    """The :class:`~dractl.validate.versions.RuntimeConfig` of a run: ``--runtime-config`` when given,
    else the config file's ``runtimeConfig``, else the served versions a snapshot header or discovery
    recorded, else kube-apiserver's defaults.  ValueError (the caller's usage error) on bad syntax."""
    from dractl.validate.versions import DEFAULT_RUNTIME, RuntimeConfig

    if flags:
        return RuntimeConfig.parse(list(flags))
    if config.runtime_config:
        try:
            return RuntimeConfig.parse(list(config.runtime_config))
        except ValueError as e:
            raise InputError(str(e), SourcePos(config.path or ".dractl.yaml"), "runtimeConfig") from None
    if served:
        return RuntimeConfig.from_served(served)
    return DEFAULT_RUNTIME


def class_docs(paths: Sequence[str], max_input_size: int | None = None) -> tuple[list[Any], list[InputError]]:
    """``--classes-from FILE|DIR|SNAPSHOT``: the DeviceClass documents of those inputs (every other
    kind is left out: they are context for ADV-CLASS-EXISTS only), and the inputs that could not be read."""
    from dractl.io import load_paths

    if not paths:
        return [], []
    limit = {"max_input_size": max_input_size} if max_input_size else {}
    loaded = load_paths(list(paths), **limit)  # type: ignore[arg-type]
    docs = [d for d in loaded.docs if isinstance(d.raw, Mapping) and d.raw.get("kind") == "DeviceClass"]
    return docs, list(loaded.errors)
