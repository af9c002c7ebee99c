"""Recording and replaying NVML answers (``--save-fixture`` / ``--nvml-fixture``).

:class:`RecordingNvml` wraps the real ``pynvml`` module and notes every answer;
:class:`FakeNvml` is a module-like object with the same function names that
answers from such a recording, so the NVML probe runs unchanged on a fixture.

Fixture format (JSON): ``{"format": "dractl-nvml-fixture/v1", "calls": {func:
{argkey: answer}}}``.  ``argkey`` joins the non-output arguments with ``|``
(handles by their key, e.g. ``gpu0`` or ``gpu0.mig1``); an answer is a JSON
value, a struct as an object, ``{"$handle": key}`` or ``{"$error": code}``.
A call the recording does not hold answers NOT_SUPPORTED.
"""

from __future__ import annotations

import ctypes
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dractl.discover.nvml_calls import NOT_SUPPORTED, gpu_instance_info
from dractl.discover.sysfs import read_regular
from dractl.errors import InputError, SourcePos

FORMAT = "dractl-nvml-fixture/v1"
_OUT_PARAMS = {"nvmlDeviceGetGpuInstancePossiblePlacements": 2, "nvmlDeviceGetGpuFabricInfoV": 1}
_CONSTANTS = {"NVML_GPU_INSTANCE_PROFILE_COUNT": 0x12, "NVML_NVLINK_MAX_LINKS": 18}
_COUNTS = frozenset({"nvmlDeviceGetCount", "nvmlDeviceGetMaxMigDeviceCount"})
_MAX_COUNT = 1024  # far above any real machine; a bigger recorded count is a corrupt fixture
MAX_FIXTURE_SIZE = 64 * 1024 * 1024  # a real recording is a few hundred KB
_MAX_SLICE = 64  # MIG memory slices per GPU (8 on every GPU so far): placements end below this
_CONSTANT_NAME = re.compile(r"NVML_[A-Z0-9_]{1,64}")
# What pynvml returns for the scalar getters the probe uses (structs are checked where they are read).
_INT_CALLS = frozenset(
    {
        "nvmlDeviceGetAddressingMode",
        "nvmlDeviceGetArchitecture",
        "nvmlDeviceGetBrand",
        "nvmlDeviceGetComputeInstanceId",
        "nvmlDeviceGetGpuInstanceId",
        "nvmlDeviceGetMinorNumber",
        "nvmlDeviceGetNvLinkState",
        "nvmlDeviceGetRetiredPagesPendingStatus",
        "nvmlDeviceGetTotalEccErrors",
        "nvmlSystemGetCudaDriverVersion",
        *_COUNTS,
    }
)
_STR_CALLS = frozenset(
    {"nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlSystemGetDriverVersion", "nvmlSystemGetNVMLVersion"}
)
_PAIR_CALLS = frozenset({"nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetMigMode"})


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _shape_error(name: str, answer: Any) -> str | None:
    """Why ``answer`` can't be what pynvml's ``name`` returns (None: it can)."""
    if name in _COUNTS and not (_is_int(answer) and 0 <= answer <= _MAX_COUNT):
        return f"{answer!r} is not a count from 0 to {_MAX_COUNT}"
    if name in _INT_CALLS and not _is_int(answer):
        return f"{answer!r} is not an integer"
    if name in _STR_CALLS and not isinstance(answer, str):
        return f"{answer!r} is not a string"
    pair = isinstance(answer, list) and len(answer) == 2 and all(map(_is_int, answer))
    if name in _PAIR_CALLS and not pair:
        return f"{answer!r} is not a pair of integers"
    return None


class FakeNVMLError(Exception):
    """Raised by :class:`FakeNvml` like ``pynvml.NVMLError`` (``.value`` is the code)."""

    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


class Placement(ctypes.Structure):
    _fields_ = [("start", ctypes.c_uint), ("size", ctypes.c_uint)]


class FabricInfo(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("clusterUuid", ctypes.c_uint8 * 16),
        ("status", ctypes.c_int),
        ("cliqueId", ctypes.c_uint32),
        ("state", ctypes.c_uint8),
        ("healthMask", ctypes.c_uint32),
    ]


class Handle:
    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"<nvml handle {self.key}>"


def _argkey(args: tuple[Any, ...], key_of: Any) -> str:
    parts = []
    for a in args:
        k = key_of(a)
        parts.append(k if k is not None else str(a))
    return "|".join(parts)


class FakeNvml:
    """Answers pynvml calls from a recording (see the module docstring)."""

    NVMLError = FakeNVMLError
    c_nvmlGpuInstancePlacement_t = Placement
    c_nvmlGpuFabricInfoV_t = FabricInfo

    def __init__(self, data: dict[str, Any], path: str | Path = "") -> None:
        self.data = data
        self.path = str(path)
        self.last_call = ""  # "func[argkey]" of the latest answer: names a malformed recording
        self.calls: dict[str, dict[str, Any]] = data.get("calls", {})
        # Constants are looked up in this dict (never set as attributes: a recorded name such as
        # "__dict__" or "calls" must not replace the fake's own state).
        self.constants: dict[str, int] = {**_CONSTANTS, **data.get("constants", {})}
        self.log: list[str] = []  # every function called, in order (tests check read-only use)

    @classmethod
    def load(cls, path: str | Path) -> FakeNvml:
        """Read a fixture file; InputError (exit 2) when it is unreadable or not a fixture."""
        where = SourcePos(str(path))
        if not Path(path).exists():
            raise InputError("cannot read NVML fixture: no such file", where)
        raw = read_regular(path, MAX_FIXTURE_SIZE)
        if raw is None:
            raise InputError(
                f"cannot read NVML fixture: not a readable regular file of at most "
                f"{MAX_FIXTURE_SIZE // 2**20} MB",
                where,
            )
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InputError(
                f"not UTF-8: byte {exc.start} (0x{raw[exc.start]:02x}) is not valid UTF-8", where
            ) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg}", SourcePos(str(path), 0, exc.lineno, exc.colno)) from exc
        except RecursionError:
            raise InputError("not an NVML fixture: nested too deep", where) from None
        if (
            not isinstance(data, dict)
            or data.get("format") != FORMAT
            or not isinstance(data.get("calls"), dict)
        ):
            raise InputError(
                f'not an NVML fixture (expected "format": "{FORMAT}" and "calls")', where, "format"
            )
        for name, table in data["calls"].items():
            if not isinstance(table, dict):
                raise InputError(
                    f"calls.{name} must be a mapping of arguments to answers, not {type(table).__name__}",
                    where,
                    f"calls.{name}",
                )
        constants = data.get("constants", {})
        if not isinstance(constants, dict):
            raise InputError(
                f"constants must be a mapping, not {type(constants).__name__}", where, "constants"
            )
        for name, value in constants.items():
            if not _CONSTANT_NAME.fullmatch(name) or not _is_int(value) or not 0 <= value <= _MAX_COUNT:
                raise InputError(
                    f"a constant must be an NVML_ name with an integer value from 0 to {_MAX_COUNT}",
                    where,
                    f"constants.{name}",
                )
        return cls(data, path)

    def malformed(self, exc: Exception) -> InputError:
        """The input error for a recorded answer the probe could not use (wrong type or shape)."""
        return InputError(
            f"a recorded NVML answer has the wrong type or shape ({type(exc).__name__}: {exc}; "
            f"last call replayed: {self.last_call or 'none'})",
            SourcePos(self.path),
            "calls",
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("NVML_") and name in self.__dict__.get("constants", {}):
            return self.__dict__["constants"][name]
        if not name.startswith("nvml"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._answer(name, args, kwargs)

    def _answer(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.log.append(name)
        args = args + tuple(kwargs.values())
        n_out = _OUT_PARAMS.get(name, 0)
        inputs, outs = (args[:-n_out], args[-n_out:]) if n_out else (args, ())
        table = self.calls.get(name, {})
        key = _argkey(inputs, lambda a: a.key if isinstance(a, Handle) else None)
        if name != "nvmlShutdown":  # called on the way out of a failed probe: keep the culprit
            self.last_call = f"{name}[{key}]"
        if not isinstance(table, dict) or key not in table:
            raise FakeNVMLError(NOT_SUPPORTED)
        answer = table[key]
        if not (isinstance(answer, dict) and "$error" in answer) and (why := _shape_error(name, answer)):
            raise InputError(f"recorded NVML answer {why}", SourcePos(self.path), f"calls.{name}[{key}]")
        if isinstance(answer, dict) and "$error" in answer:
            raise FakeNVMLError(int(answer["$error"]))
        if n_out:
            return self._fill(name, answer, outs)
        return _decode(answer)

    def _fill(self, name: str, answer: Any, outs: tuple[Any, ...]) -> int:
        where = SourcePos(self.path)
        if name == "nvmlDeviceGetGpuFabricInfoV":
            info = getattr(outs[0], "_obj", outs[0])
            if not isinstance(answer, dict):
                raise InputError("recorded fabric info is not a mapping", where, f"calls.{name}")
            for field, value in answer.items():
                if field == "clusterUuid":
                    if not (
                        isinstance(value, list)
                        and len(value) == 16
                        and all(_is_int(b) and 0 <= b < 256 for b in value)
                    ):
                        raise InputError("clusterUuid is not 16 bytes", where, f"calls.{name}.clusterUuid")
                    info.clusterUuid[:] = list(value)
                elif field in _FABRIC_FIELDS:  # only the struct's own fields, only integers
                    if not _is_int(value) or not 0 <= value < 2**32:
                        raise InputError(
                            f"{value!r} is not a 32-bit unsigned integer", where, f"calls.{name}.{field}"
                        )
                    setattr(info, field, value)
            return 0
        array, count = outs
        if not isinstance(answer, list):
            raise InputError("recorded placements are not a list", where, f"calls.{name}")
        for i, p in enumerate(answer):
            if not (
                isinstance(p, dict)
                and _is_int(p.get("start"))
                and _is_int(p.get("size"))
                and 0 <= p["start"] < _MAX_SLICE
                and 0 < p["size"] <= _MAX_SLICE - p["start"]
            ):
                raise InputError(
                    f"placement {i} is not {{start, size}} within {_MAX_SLICE} memory slices",
                    where,
                    f"calls.{name}[{i}]",
                )
        if array is not None:
            for i, p in enumerate(answer[: len(array)]):
                array[i].start, array[i].size = p["start"], p["size"]
        count.contents.value = len(answer)
        return 0


_FABRIC_FIELDS = frozenset(f for f, *_ in FabricInfo._fields_) - {"version", "clusterUuid"}


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "$handle" in value:
            return Handle(value["$handle"])
        return SimpleNamespace(**{k: _decode(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


class RecordingNvml:
    """A pass-through proxy of the real pynvml module that records every answer."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.calls: dict[str, dict[str, Any]] = {}
        self._keys: dict[int, str] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if not name.startswith("nvml") or not callable(attr) or isinstance(attr, type):
            return attr
        return lambda *args, **kwargs: self._call(name, attr, args, kwargs)

    def _key_of(self, obj: Any) -> str | None:
        try:
            address = ctypes.cast(obj, ctypes.c_void_p).value
        except (TypeError, ctypes.ArgumentError):
            return None
        return self._keys.get(address) if address is not None else None

    def _call(self, name: str, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        all_args = args + tuple(kwargs.values())
        n_out = _OUT_PARAMS.get(name, 0)
        inputs = all_args[:-n_out] if n_out else all_args
        key = _argkey(inputs, self._key_of)
        table = self.calls.setdefault(name, {})
        try:
            result = (
                gpu_instance_info(self._real, *args)
                if name == "nvmlGpuInstanceGetInfo"
                else fn(*args, **kwargs)
            )
        except self._real.NVMLError as exc:
            table[key] = {"$error": int(exc.value)}
            raise
        if name in (
            "nvmlDeviceGetHandleByIndex",
            "nvmlDeviceGetMigDeviceHandleByIndex",
            "nvmlDeviceGetGpuInstanceById",
        ):
            parent = self._key_of(args[0]) if name != "nvmlDeviceGetHandleByIndex" else None
            prefix = {
                "nvmlDeviceGetHandleByIndex": "gpu",
                "nvmlDeviceGetMigDeviceHandleByIndex": "mig",
                "nvmlDeviceGetGpuInstanceById": "gi",
            }[name]
            handle_key = f"{parent}.{prefix}{args[-1]}" if parent else f"{prefix}{args[-1]}"
            address = ctypes.cast(result, ctypes.c_void_p).value
            if address is not None:
                self._keys[address] = handle_key
            table[key] = {"$handle": handle_key}
        elif name == "nvmlDeviceGetGpuInstancePossiblePlacements":
            array, count = all_args[-2:]
            if array is not None:
                table[key] = [
                    {"start": int(array[i].start), "size": int(array[i].size)}
                    for i in range(count.contents.value)
                ]
        elif name == "nvmlDeviceGetGpuFabricInfoV":
            table[key] = self._plain(getattr(all_args[-1], "_obj", all_args[-1]))
        else:
            table[key] = self._plain(result)
        return result

    def _plain(self, value: Any) -> Any:
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, bytes):
            return value.split(b"\0", 1)[0].decode("utf-8", errors="replace")
        if isinstance(value, list | tuple):
            return [self._plain(v) for v in value]
        if isinstance(value, ctypes.Array):
            return [self._plain(v) for v in value]
        if isinstance(value, ctypes.Structure):
            out = {}
            for field, *_ in value._fields_:
                item = getattr(value, field)
                key = self._key_of(item) if field == "device" else None
                out[field] = {"$handle": key} if key else self._plain(item)
            return out
        if hasattr(value, "value"):
            return self._plain(value.value)
        return str(value)

    def fixture(self) -> dict[str, Any]:
        """The recording as a fixture document."""
        return {"format": FORMAT, "calls": self.calls}
