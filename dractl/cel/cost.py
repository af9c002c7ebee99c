"""Worst-case cost estimate over the checked AST (cel-go's estimator, Kubernetes' library costs and
the DRA size model for the ``device`` variable)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dractl.cel import types as T
from dractl.cel.ast import (
    Call,
    Comprehension,
    Const,
    CreateList,
    CreateMap,
    CreateStruct,
    Expr,
    Ident,
    Select,
)
from dractl.cel.checker import CheckResult

U64 = 2**64 - 1
STRING_FACTOR = 0.1
REGEX_FACTOR = 0.25
LIST_CREATE = 10
MAP_CREATE = 30
# DRA size model (k8s.io/api/resource/v1 limits)
DOMAIN_MAX = 63
ID_MAX = 32
DRIVER_MAX = 63
ATTRS_PER_DEVICE = 32
ATTRIBUTE_VALUE_MAX = 64
LIST_ATTRIBUTE_MAX = 48
MAX_NAME_FORMAT_REGEX = 128


@dataclass(frozen=True, slots=True)
class Est:
    min: int
    max: int

    def add(self, o: Est) -> Est:
        return Est(min(self.min + o.min, U64), min(self.max + o.max, U64))

    def mul(self, o: Est) -> Est:
        return Est(min(self.min * o.min, U64), min(self.max * o.max, U64))

    def union(self, o: Est) -> Est:
        return Est(min(self.min, o.min), max(self.max, o.max))

    def factor(self, f: float) -> Est:
        return Est(_mf(self.min, f), _mf(self.max, f))


def _mf(x: int, f: float) -> int:
    xf = float(x)
    if xf > 0 and f > 0 and xf > U64 / f:
        return U64
    c = math.ceil(xf * f)
    return U64 if c >= 2.0**64 else int(c)


ONE = Est(1, 1)
ZERO = Est(0, 0)
UNKNOWN = Est(0, U64)
_EMPTY_UNION = Est(U64, 0)  # the neutral element of Est.union
Entry = tuple[str, Est, Est]


def _union_entries(a: Entry | None, b: Entry | None) -> Entry | None:
    if a is None or b is None:
        return None
    return (a[0], a[1].union(b[1]), a[2].union(b[2]))


# path node: (kind, max elements, children)
_ATTR_VALUE = ("attr", ATTRIBUTE_VALUE_MAX)


def _path_size(path: list[str]) -> Est | None:
    """The DRA sizeEstimator: sizes reachable from ``device``."""
    if not path or path[0] != "device":
        return None
    node = "device"
    for name in path[1:]:
        if node == "device":
            node = {
                "driver": "driver",
                "attributes": "attrs",
                "capacity": "caps",
                "allowMultipleAllocations": "bool",
            }.get(name, "")
            if not node:
                return None
        elif node in ("attrs", "caps"):
            if name in ("@values", "@items"):
                node = "inner_" + node
            elif name == "@keys":
                node = "domain"
            else:
                return None
        elif node in ("inner_attrs", "inner_caps"):
            if name == "@keys":
                node = "id"
            elif node == "inner_attrs":
                node = "attr"
            elif name in ("@values", "@items"):
                node = "quantity"
            else:
                return None
        else:
            return None
    sizes = {
        "driver": DRIVER_MAX,
        "attrs": ATTRS_PER_DEVICE,
        "caps": ATTRS_PER_DEVICE,
        "inner_attrs": ATTRS_PER_DEVICE,
        "inner_caps": ATTRS_PER_DEVICE,
        "domain": DOMAIN_MAX,
        "id": ID_MAX,
        "attr": ATTRIBUTE_VALUE_MAX,
    }
    if node not in sizes:
        return None
    return Est(0, sizes[node])


class Coster:
    def __init__(self, checked: CheckResult, list_attr_max: int = LIST_ATTRIBUTE_MAX) -> None:
        self.types = checked.types
        self.overloads = checked.overloads
        self.rewritten = checked.rewritten
        self.paths: dict[int, list[str]] = {}
        self.sizes: dict[int, Est] = {}
        # cel-go's entry sizes: (container kind, key size, value size) of list and map values
        self.entries: dict[int, Entry] = {}
        self.iter_entries: list[dict[str, Entry]] = []
        self.iter_paths: list[dict[str, list[str]]] = []
        self.iter_sizes: list[dict[str, Est]] = []
        self.list_attr_max = list_attr_max

    def size(self, e: Expr) -> Est:
        if e.id in self.sizes:
            return self.sizes[e.id]
        if _is_scalar(self.types.get(e.id, T.DYN)):
            return ONE
        if isinstance(e, Const):
            if e.kind == "string":
                return Est(len(e.value), len(e.value))
            if e.kind == "bytes":
                return Est(len(e.value or b""), len(e.value or b""))
            return ONE
        if isinstance(e, CreateList):
            return Est(len(e.elements), len(e.elements))
        if isinstance(e, CreateMap):
            return Est(len(e.entries), len(e.entries))
        p = self.paths.get(e.id)
        if p is not None:
            s = _path_size(p)
            if s is not None:
                return s
        return UNKNOWN

    def cost(self, e: Expr) -> Est:
        if isinstance(e, Const):
            return ZERO
        if isinstance(e, Ident):
            for scope in reversed(self.iter_paths):
                if e.name in scope:
                    self.paths[e.id] = scope[e.name]
                    break
            else:
                if e.name == "device":
                    self.paths[e.id] = ["device"]
            for sscope in reversed(self.iter_sizes):
                if e.name in sscope:
                    self.sizes[e.id] = sscope[e.name]
                    break
            return ONE
        if isinstance(e, Select):
            s = self.cost(e.operand)
            if e.test_only:
                return s
            k = self.types.get(e.operand.id, T.DYN).kind
            if k in ("map", "object", "param"):
                s = s.add(ONE)
            p = self.paths.get(e.operand.id)
            if p is not None:
                self.paths[e.id] = [*p, e.field]
            return s
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, CreateList):
            s = Est(LIST_CREATE, LIST_CREATE)
            item = _EMPTY_UNION if e.elements else ZERO
            for x in e.elements:
                s = s.add(self.cost(x))
                item = item.union(self.size(x))
            self.entries[e.id] = ("list", ONE, item)
            return s
        if isinstance(e, CreateMap):
            s = Est(MAP_CREATE, MAP_CREATE)
            ks = vs = _EMPTY_UNION if e.entries else ZERO
            for ent in e.entries:
                s = s.add(self.cost(ent.key)).add(self.cost(ent.value))
                ks = ks.union(self.size(ent.key))
                vs = vs.union(self.size(ent.value))
            self.entries[e.id] = ("map", ks, vs)
            return s
        if isinstance(e, CreateStruct):
            s = Est(40, 40)
            for _, v, _ in e.fields:
                s = s.add(self.cost(v))
            return s
        if isinstance(e, Comprehension):
            return self.comprehension(e)
        return ZERO

    def entry(self, e: Expr) -> Entry | None:
        """cel-go's ``computeEntrySize``: of the expression, else of the local variable it names."""
        hit = self.entries.get(e.id)
        if hit is None and isinstance(e, Ident):
            for scope in reversed(self.iter_entries):
                if e.name in scope:
                    return scope[e.name]
        return hit

    def comprehension(self, e: Comprehension) -> Est:
        s = self.cost(e.iter_range).add(self.cost(e.accu_init))
        rp = self.paths.get(e.iter_range.id)
        scope: dict[str, list[str]] = {}
        sscope: dict[str, Est] = {}
        escope: dict[str, Entry] = {}
        ent = self.entry(e.iter_range)
        if ent is not None and e.macro != "bind":
            if e.iter_var2:
                sscope[e.iter_var] = ent[1]
                sscope[e.iter_var2] = ent[2]
            else:
                sscope[e.iter_var] = ent[2] if ent[0] == "list" else ent[1]
        if rp is not None:
            rk = self.types.get(e.iter_range.id, T.DYN).kind
            if rk == "map":
                scope[e.iter_var] = [*rp, "@keys"]
                if e.iter_var2:
                    scope[e.iter_var2] = [*rp, "@values"]
            elif not e.iter_var2:
                scope[e.iter_var] = [*rp, "@items"]
            else:
                scope[e.iter_var2] = [*rp, "@items"]
        if e.macro == "bind":
            ap = self.paths.get(e.accu_init.id)
            if ap is not None:
                scope[e.accu_var] = ap
        init_size = self.size(e.accu_init)
        if init_size is not UNKNOWN:
            sscope.setdefault(e.accu_var, init_size)
        init_entry = self.entry(e.accu_init)
        if init_entry is not None:
            escope[e.accu_var] = init_entry
        self.iter_paths.append(scope)
        self.iter_sizes.append(sscope)
        self.iter_entries.append(escope)
        loop = self.cost(e.loop_condition)
        step = self.cost(e.loop_step)
        result = self.cost(e.result)
        step_entry = self.entry(e.loop_step)
        self.iter_paths.pop()
        self.iter_sizes.pop()
        self.iter_entries.pop()
        s = s.add(result)
        if e.macro == "bind":  # cel-go's costBind: the bind has its result's sizes
            rs = self.size(e.result)
            if rs is not UNKNOWN:
                self.sizes[e.id] = rs
            re_ = self.entry(e.result)
            if re_ is not None:
                self.entries[e.id] = re_
            return s
        if isinstance(e.accu_init, CreateList | CreateMap) and step_entry is not None:
            self.entries[e.id] = step_entry
        rng = self.size(e.iter_range)
        if e.macro in ("map", "transformList", "transformMap", "transformMapEntry"):
            self.sizes[e.id] = rng
        elif e.macro == "filter":
            self.sizes[e.id] = Est(0, rng.max)
        return s.add(rng.mul(step.add(loop)))

    def call(self, e: Call) -> Est:
        fn = self.rewritten.get(e.id, e.function)
        target = e.target if fn == e.function else None
        args = e.args
        tcost = self.cost(target) if target is not None else ZERO
        acosts = [self.cost(a) for a in args]
        total_args = tcost
        for c in acosts:
            total_args = total_args.add(c)
        if fn == "_?._":
            p = self.paths.get(args[0].id)
            if p is not None and isinstance(args[1], Const):
                self.paths[e.id] = [*p, str(args[1].value)]
            return total_args.add(ONE)
        ovs = self.overloads.get(e.id, [])
        best: Est | None = None
        for ov in ovs or [""]:
            c = self.function_cost(e, fn, ov, target, args, acosts, total_args)
            best = c if best is None else best.union(c)
            if ov in ("index_list", "optional_list_index_int", "list_optindex_optional_int"):
                p = self.paths.get(args[0].id)
                if p is not None:
                    self.paths[e.id] = [*p, "@items"]
            elif ov in ("index_map", "optional_map_index_value", "map_optindex_optional_value"):
                p = self.paths.get(args[0].id)
                if p is not None:
                    self.paths[e.id] = [*p, "@values"]
            if ov in ("index_list", "index_map"):  # the element's size, from the container's entries
                ent = self.entry(args[0])
                if ent is not None:
                    self.sizes[e.id] = ent[2]
        assert best is not None
        return best

    def function_cost(
        self, e: Call, fn: str, ov: str, target: Expr | None, args: list[Expr], acosts: list[Est], total: Est
    ) -> Est:
        k8s = self.k8s_cost(e, fn, target, args)
        if k8s is not None:
            return k8s.add(total)
        all_args = ([target] if target is not None else []) + list(args)
        if ov == "string_format" and target is not None:
            return self.size(target).factor(STRING_FACTOR).add(total)
        if ov in ("string_to_bytes", "bytes_to_string", "strings_quote") and args:
            sz = self.size(args[0])
            # (uint64 arithmetic as in cel-go, wrapping included: an unknown size quoted is [2, 0])
            if ov == "string_to_bytes":  # each code point is up to 4 bytes
                self.sizes[e.id] = Est(sz.min, (sz.max * 4) & U64)
            elif ov == "bytes_to_string":  # 4 bytes may make one code point
                self.sizes[e.id] = Est(sz.min // 4, sz.max)
            else:  # every character escaped, plus the quotes
                self.sizes[e.id] = Est((sz.min + 2) & U64, (sz.max * 2 + 2) & U64)
            return sz.factor(STRING_FACTOR).add(total)
        if ov in ("starts_with_string", "ends_with_string") and target is not None:
            return self.size(args[0]).factor(STRING_FACTOR).add(total)
        if ov == "in_list":
            return self.size(args[1]).factor(1).add(total)
        if ov == "matches_string" or (ov == "matches" and len(all_args) == 2):
            s = self.size(all_args[0]).add(ONE).factor(STRING_FACTOR)
            r = self.size(all_args[1]).factor(REGEX_FACTOR)
            return s.mul(r).add(total)
        if ov == "contains_string" and target is not None:
            s = self.size(target).factor(STRING_FACTOR)
            return s.mul(self.size(args[0]).factor(STRING_FACTOR)).add(total)
        if fn in ("_&&_", "_||_"):
            lhs, rhs = acosts
            return Est(lhs.min, lhs.add(rhs).max)
        if fn == "_?_:_":
            c, t, f = acosts
            self.sizes[e.id] = self.size(args[1]).union(self.size(args[2]))
            ent = _union_entries(self.entry(args[1]), self.entry(args[2]))
            if ent is not None:
                self.entries[e.id] = ent
            return c.add(t.union(f))
        if ov in ("add_string", "add_bytes", "add_list"):
            sz = self.size(args[0]).add(self.size(args[1]))
            self.sizes[e.id] = sz
            ent = _union_entries(self.entry(args[0]), self.entry(args[1]))
            if ent is not None:
                self.entries[e.id] = ent
            if ov == "add_list":
                return ONE.add(total)
            return sz.factor(STRING_FACTOR).add(total)
        if ov.startswith(
            (
                "less_string",
                "greater_string",
                "less_equals_string",
                "greater_equals_string",
                "less_bytes",
                "greater_bytes",
                "less_equals_bytes",
                "greater_equals_bytes",
            )
        ) or ov in ("equals", "not_equals"):
            if ov.startswith(("less", "greater")) and not ov.endswith(("_string", "_bytes")):
                return ONE.add(total)
            if ov == "equals":
                lt, rt = (self.types.get(a.id, T.DYN) for a in all_args)
                if lt == rt and lt.kind == "opaque" and not T.is_optional(lt):
                    return ONE.add(total)
            lhs, rhs = self.size(all_args[0]), self.size(all_args[1])
            smallest = min(lhs.max, rhs.max)
            return Est(1 if smallest > 0 else 0, smallest).factor(STRING_FACTOR).add(total)
        if fn in ("@not_strictly_false",):
            return ONE.add(total)
        if fn == "lists.range" and args:
            a = args[0]
            if isinstance(a, Const) and a.kind == "int":
                n = max(a.value, 0)
                self.sizes[e.id] = Est(n, n)
                return Est(LIST_CREATE + n + 1, LIST_CREATE + n + 1).add(total)
            return UNKNOWN.add(total)
        if fn == "flatten" and target is not None:
            sz = self.size(target)
            self.sizes[e.id] = sz
            return Est(LIST_CREATE + 1, LIST_CREATE + 1).add(sz).add(total)
        if fn == "slice" and target is not None and len(args) == 2:
            lo, hi = args
            if isinstance(lo, Const) and isinstance(hi, Const) and lo.kind == hi.kind == "int":
                n = (hi.value - lo.value) % 2**64
                self.sizes[e.id] = Est(n, n)
                return Est(n, n).add(Est(LIST_CREATE + 1, LIST_CREATE + 1)).add(total)
        if fn == "dyn" and args:
            self.sizes[e.id] = self.size(args[0])
            ent = self.entry(args[0])
            if ent is not None:
                self.entries[e.id] = ent
        if fn == "includes":
            return Est(1, self.list_attr_max).add(total)
        return ONE.add(total)

    def k8s_cost(self, e: Call, fn: str, target: Expr | None, args: list[Expr]) -> Est | None:
        """Kubernetes' library.CostEstimator (without the argument costs)."""
        if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf") and target is not None:
            tt = self.types.get(target.id, T.DYN)
            if tt.kind == "list":
                el = ONE
                if tt.params[0].kind in ("string", "bytes") and args:
                    el = el.add(self.size(args[0]).factor(STRING_FACTOR))
                return self.size(target).factor(1).mul(el)
            return self.size(target).factor(STRING_FACTOR)
        if fn == "ip.isCanonical" and args:
            return self.size(args[0]).factor(2 * STRING_FACTOR)
        if (
            fn
            in (
                "url",
                "isURL",
                "cidr",
                "isIP",
                "isCIDR",
                "ip",
                "quantity",
                "isQuantity",
                "semver",
                "isSemver",
            )
            and target is None
            and args
        ):
            return self.size(args[0]).factor(STRING_FACTOR)
        if fn in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            sz = self.size(target)
            self.sizes[e.id] = sz
            return sz.factor(STRING_FACTOR)
        if fn == "replace" and target is not None and len(args) >= 2:
            sz = self.size(target)
            self.sizes[e.id] = _replace_size(sz, self.size(args[0]), self.size(args[1]))
            return sz.factor(2 * STRING_FACTOR)
        if fn == "split" and target is not None:
            sz = self.size(target)
            mx = sz.max
            if len(args) > 1 and isinstance(args[1], Const) and args[1].kind == "int":
                mx = args[1].value % 2**64
            self.sizes[e.id] = Est(0, mx)
            return sz.factor(2 * STRING_FACTOR)
        if fn == "join" and target is not None:
            ls = self.size(target)
            # Elements of a list attribute count as size 0 (observed); any other list's
            # elements as unknown.
            el = ZERO if self.paths.get(target.id) is not None else UNKNOWN
            sz = ls.mul(el)
            if args:
                seps = Est(max(ls.min - 1, 0), max(ls.max - 1, 0))
                sz = sz.add(self.size(args[0]).mul(seps))
            self.sizes[e.id] = sz
            return sz.factor(STRING_FACTOR)
        if fn in ("find", "findAll") and target is not None and args:
            sz = self.size(target)
            s = sz.add(ONE).factor(STRING_FACTOR)
            r = self.size(args[0]).factor(REGEX_FACTOR)
            self.sizes[e.id] = Est(0, sz.max)
            return s.mul(r)
        if fn in (
            "sign",
            "asInteger",
            "isInteger",
            "asApproximateFloat",
            "isGreaterThan",
            "isLessThan",
            "compareTo",
            "add",
            "sub",
            "major",
            "minor",
            "patch",
            "getScheme",
            "getHostname",
            "getHost",
            "getPort",
            "getEscapedPath",
            "getQuery",
            "format.named",
            "family",
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast",
            "masked",
            "prefixLength",
        ) and not (fn == "ip" and target is None):
            return ONE
        if fn in ("sets.contains", "sets.equivalent", "sets.intersects") and len(args) == 2:
            pairs = self.size(args[0]).mul(self.size(args[1]))
            # equivalence is two containment checks (cel-go's cost factor 2)
            return ONE.add(pairs.mul(Est(2, 2)) if fn == "sets.equivalent" else pairs)
        if fn in ("containsIP", "containsCIDR") and target is not None and args:
            ip_bytes = Est(4, 16)
            c = ip_bytes.add(ip_bytes).factor(STRING_FACTOR)
            if fn == "containsCIDR":
                c = c.add(ip_bytes.factor(STRING_FACTOR)).add(ONE)
            ovs = self.overloads.get(e.id, [])
            parse = c.add(self.size(args[0]).factor(STRING_FACTOR))  # a string argument is parsed first
            if ovs and all(o.endswith("_string") for o in ovs):
                c = parse
            elif any(o.endswith("_string") for o in ovs):
                c = c.union(parse)
            return c
        if fn == "validate" and target is not None and args:
            return self.size(args[0]).factor(STRING_FACTOR).factor(MAX_NAME_FORMAT_REGEX * REGEX_FACTOR)
        if fn in ("reverse", "distinct", "sort") and target is not None:
            sz = self.size(target)
            self.sizes[e.id] = sz
            return Est(LIST_CREATE + 1, LIST_CREATE + 1).add(sz)
        return None


def _replace_size(sz: Est, old: Est, new: Est) -> Est:
    """Kubernetes' result size of ``s.replace(old, new)``: the most and fewest replacements."""
    if old.min == 0:  # an empty needle surrounds every character
        count_max, kept_max = (sz.max + 1 if sz.max < U64 else sz.max), sz.max
    elif new.max <= old.min:
        count_max, kept_max = 0, sz.max
    else:
        count_max, kept_max = math.ceil(sz.max / old.min), 0
    if old.max == 0:
        count_min, kept_min = (sz.min + 1 if sz.min < U64 else sz.min), sz.min
    elif old.max <= new.min:
        count_min, kept_min = 0, sz.min
    else:
        count_min, kept_min = math.ceil(sz.min / old.max), 0
    return Est(min(count_min, U64), min(count_max, U64)).mul(new).add(Est(kept_min, kept_max))


def _is_scalar(t: T.Type) -> bool:
    if t.kind in ("bool", "double", "duration", "int", "timestamp", "uint"):
        return True
    return T.is_optional(t) and _is_scalar(t.params[0])


def estimate(ast: Expr, checked: CheckResult) -> Est:
    """The (min, max) estimated cost of a checked expression."""
    return Coster(checked).cost(ast)
