"""Function declarations of the Kubernetes DRA CEL environment, with cel-go's overload ids.

Each row: ``(function, overload id, member?, argument types, result type)`` in the mini
syntax of :func:`dractl.cel.types.parse_sig`.  The overload ids matter to the cost
estimator, the signatures to the checker.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from dractl.cel.types import Type, parse_sig

# The timestamp accessors of the CEL standard library (each also takes a time zone string).
TIME_ACCESSORS = (
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
)


@dataclass(frozen=True, slots=True)
class Overload:
    id: str
    member: bool
    args: tuple[Type, ...]
    result: Type


_ORDERED = ("int", "uint", "double", "string", "bytes", "bool", "timestamp", "duration")
_ORD_ID = {
    "int": "int64",
    "uint": "uint64",
    "double": "double",
    "string": "string",
    "bytes": "bytes",
    "bool": "bool",
    "timestamp": "timestamp",
    "duration": "duration",
}


def _rows() -> list[tuple[str, str, bool, list[str], str]]:
    r: list[tuple[str, str, bool, list[str], str]] = []

    def g(fn: str, oid: str, args: list[str], res: str) -> None:
        r.append((fn, oid, False, args, res))

    def m(fn: str, oid: str, args: list[str], res: str) -> None:
        r.append((fn, oid, True, args, res))

    # -- operators
    for t in ("int", "uint", "double"):
        i = _ORD_ID[t]
        g("_+_", f"add_{i}", [t, t], t)
        g("_-_", f"subtract_{i}", [t, t], t)
        g("_*_", f"multiply_{i}", [t, t], t)
        g("_/_", f"divide_{i}", [t, t], t)
    g("_%_", "modulo_int64", ["int", "int"], "int")
    g("_%_", "modulo_uint64", ["uint", "uint"], "uint")
    g("_+_", "add_string", ["string", "string"], "string")
    g("_+_", "add_bytes", ["bytes", "bytes"], "bytes")
    g("_+_", "add_list", ["list(A)", "list(A)"], "list(A)")
    g("_+_", "add_timestamp_duration", ["timestamp", "duration"], "timestamp")
    g("_+_", "add_duration_timestamp", ["duration", "timestamp"], "timestamp")
    g("_+_", "add_duration_duration", ["duration", "duration"], "duration")
    g("_-_", "subtract_timestamp_timestamp", ["timestamp", "timestamp"], "duration")
    g("_-_", "subtract_timestamp_duration", ["timestamp", "duration"], "timestamp")
    g("_-_", "subtract_duration_duration", ["duration", "duration"], "duration")
    g("-_", "negate_int64", ["int"], "int")
    g("-_", "negate_double", ["double"], "double")
    g("!_", "logical_not", ["bool"], "bool")
    g("_&&_", "logical_and", ["bool", "bool"], "bool")
    g("_||_", "logical_or", ["bool", "bool"], "bool")
    g("@not_strictly_false", "not_strictly_false", ["bool"], "bool")
    g("_?_:_", "conditional", ["bool", "A", "A"], "A")
    g("_==_", "equals", ["A", "A"], "bool")
    g("_!=_", "not_equals", ["A", "A"], "bool")
    for op, name in (
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ):
        for t in _ORDERED:
            g(op, f"{name}_{_ORD_ID[t]}", [t, t], "bool")
        for a, b in (
            ("int", "uint"),
            ("int", "double"),
            ("uint", "int"),
            ("uint", "double"),
            ("double", "int"),
            ("double", "uint"),
        ):
            g(op, f"{name}_{_ORD_ID[a]}_{_ORD_ID[b]}", [a, b], "bool")
    g("@in", "in_list", ["A", "list(A)"], "bool")
    g("@in", "in_map", ["A", "map(A,B)"], "bool")
    g("_[_]", "index_list", ["list(A)", "int"], "A")
    g("_[_]", "index_map", ["map(A,B)", "A"], "B")
    g("_[_]", "optional_list_index_int", ["opt(list(A))", "int"], "opt(A)")
    g("_[_]", "optional_map_index_value", ["opt(map(A,B))", "A"], "opt(B)")
    g("_[?_]", "list_optindex_optional_int", ["list(A)", "int"], "opt(A)")
    g("_[?_]", "optional_list_optindex_optional_int", ["opt(list(A))", "int"], "opt(A)")
    g("_[?_]", "map_optindex_optional_value", ["map(A,B)", "A"], "opt(B)")
    g("_[?_]", "optional_map_optindex_optional_value", ["opt(map(A,B))", "A"], "opt(B)")
    # -- size and conversions
    for t, oid in (("string", "string"), ("bytes", "bytes"), ("list(A)", "list"), ("map(A,B)", "map")):
        g("size", f"size_{oid}", [t], "int")
        m("size", f"{oid}_size", [t], "int")
    conv = {
        "int": ["int", "uint", "double", "string", "timestamp", "duration"],
        "uint": ["uint", "int", "double", "string"],
        "double": ["double", "int", "uint", "string"],
        "string": ["string", "int", "uint", "double", "bytes", "bool", "timestamp", "duration"],
        "bytes": ["bytes", "string"],
        "bool": ["bool", "string"],
    }
    for to, froms in conv.items():
        for f in froms:
            g(to, f"{_ORD_ID[f]}_to_{_ORD_ID[to]}", [f], to)
    g("duration", "string_to_duration", ["string"], "duration")
    g("duration", "duration_to_duration", ["duration"], "duration")
    g("timestamp", "string_to_timestamp", ["string"], "timestamp")
    g("timestamp", "int64_to_timestamp", ["int"], "timestamp")
    g("timestamp", "timestamp_to_timestamp", ["timestamp"], "timestamp")
    g("dyn", "to_dyn", ["A"], "dyn")
    g("type", "type", ["A"], "type(A)")
    # -- strings (standard)
    m("contains", "contains_string", ["string", "string"], "bool")
    m("startsWith", "starts_with_string", ["string", "string"], "bool")
    m("endsWith", "ends_with_string", ["string", "string"], "bool")
    g("matches", "matches", ["string", "string"], "bool")
    m("matches", "matches_string", ["string", "string"], "bool")
    # -- time accessors
    for fn in TIME_ACCESSORS:
        m(fn, f"timestamp_to_{fn}", ["timestamp"], "int")
        m(fn, f"timestamp_to_{fn}_with_tz", ["timestamp", "string"], "int")
    for fn in ("getHours", "getMinutes", "getSeconds", "getMilliseconds"):
        m(fn, f"duration_to_{fn}", ["duration"], "int")
    # -- optionals
    g("optional.of", "optional_of", ["A"], "opt(A)")
    g("optional.ofNonZeroValue", "optional_ofNonZeroValue", ["A"], "opt(A)")
    g("optional.none", "optional_none", [], "opt(A)")
    m("value", "optional_value", ["opt(A)"], "A")
    m("hasValue", "optional_hasValue", ["opt(A)"], "bool")
    m("or", "optional_or_optional", ["opt(A)", "opt(A)"], "opt(A)")
    m("orValue", "optional_orValue_value", ["opt(A)", "A"], "A")
    g("optional.unwrap", "optional_unwrap", ["list(opt(A))"], "list(A)")
    m("unwrapOpt", "optional_unwrapOpt", ["list(opt(A))"], "list(A)")
    # -- ext.Strings v2
    m("charAt", "string_char_at_int", ["string", "int"], "string")
    m("indexOf", "string_index_of_string", ["string", "string"], "int")
    m("indexOf", "string_index_of_string_int", ["string", "string", "int"], "int")
    m("lastIndexOf", "string_last_index_of_string", ["string", "string"], "int")
    m("lastIndexOf", "string_last_index_of_string_int", ["string", "string", "int"], "int")
    m("lowerAscii", "string_lower_ascii", ["string"], "string")
    m("upperAscii", "string_upper_ascii", ["string"], "string")
    m("replace", "string_replace_string_string", ["string", "string", "string"], "string")
    m("replace", "string_replace_string_string_int", ["string", "string", "string", "int"], "string")
    m("split", "string_split_string", ["string", "string"], "list(string)")
    m("split", "string_split_string_int", ["string", "string", "int"], "list(string)")
    m("substring", "string_substring_int", ["string", "int"], "string")
    m("substring", "string_substring_int_int", ["string", "int", "int"], "string")
    m("trim", "string_trim", ["string"], "string")
    m("join", "list_join", ["list(string)"], "string")
    m("join", "list_join_string", ["list(string)", "string"], "string")
    m("format", "string_format", ["string", "list(dyn)"], "string")
    g("strings.quote", "strings_quote", ["string"], "string")
    # -- ext.Sets
    for fn in ("contains", "equivalent", "intersects"):
        g(f"sets.{fn}", f"list_sets_{fn}_list", ["list(A)", "list(A)"], "bool")
    # -- ext.Lists
    m("slice", "list_slice", ["list(A)", "int", "int"], "list(A)")
    m("flatten", "list_flatten", ["list(list(A))"], "list(A)")
    m("flatten", "list_flatten_int", ["list(dyn)", "int"], "list(dyn)")
    g("lists.range", "lists_range", ["int"], "list(int)")
    m("distinct", "list_distinct", ["list(A)"], "list(A)")
    m("reverse", "list_reverse", ["list(A)"], "list(A)")
    m("sort", "list_sort", ["list(A)"], "list(A)")
    g("lists.@sortByAssociatedKeys", "list_sortByAssociatedKeys", ["list(A)", "list(B)"], "list(A)")
    m("first", "list_first", ["list(A)"], "opt(A)")
    m("last", "list_last", ["list(A)"], "opt(A)")
    # -- two-variable comprehensions
    g("cel.@mapInsert", "@mapInsert_map_key_value", ["map(K,V)", "K", "V"], "map(K,V)")
    g("cel.@mapInsert", "@mapInsert_map_map", ["map(K,V)", "map(K,V)"], "map(K,V)")
    # -- Kubernetes lists
    for t in ("int", "uint", "double", "bool", "string", "bytes", "duration", "timestamp"):
        m("isSorted", f"list_{t}_is_sorted_bool", [f"list({t})"], "bool")
    for t in ("int", "uint", "double", "duration"):
        m("sum", f"list_{t}_sum_{t}", [f"list({t})"], t)
    for fn in ("min", "max"):
        for t in ("int", "uint", "double", "bool", "string", "bytes", "duration", "timestamp"):
            m(fn, f"list_{t}_{fn}_{t}", [f"list({t})"], t)
    m("indexOf", "list_a_index_of_int", ["list(A)", "A"], "int")
    m("lastIndexOf", "list_a_last_index_of_int", ["list(A)", "A"], "int")
    # -- Kubernetes regex
    m("find", "string_find_string", ["string", "string"], "string")
    m("findAll", "string_find_all_string", ["string", "string"], "list(string)")
    m("findAll", "string_find_all_string_int", ["string", "string", "int"], "list(string)")
    # -- Kubernetes URLs
    g("url", "string_to_url", ["string"], "URL")
    g("isURL", "is_url_string", ["string"], "bool")
    for fn in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"):
        m(fn, f"url_{fn}", ["URL"], "string")
    m("getQuery", "url_getQuery", ["URL"], "map(string,list(string))")
    # -- Kubernetes IP / CIDR
    g("ip", "string_to_ip", ["string"], "IP")
    g("isIP", "is_ip", ["string"], "bool")
    g("ip.isCanonical", "ip_is_canonical", ["string"], "bool")
    g("string", "ip_to_string", ["IP"], "string")
    m("family", "ip_family", ["IP"], "int")
    for fn in (
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
    ):
        m(fn, f"ip_{fn}", ["IP"], "bool")
    g("cidr", "string_to_cidr", ["string"], "CIDR")
    g("isCIDR", "is_cidr", ["string"], "bool")
    g("string", "cidr_to_string", ["CIDR"], "string")
    m("containsIP", "cidr_contains_ip_string", ["CIDR", "string"], "bool")
    m("containsIP", "cidr_contains_ip_ip", ["CIDR", "IP"], "bool")
    m("containsCIDR", "cidr_contains_cidr_string", ["CIDR", "string"], "bool")
    m("containsCIDR", "cidr_contains_cidr", ["CIDR", "CIDR"], "bool")
    m("ip", "cidr_ip", ["CIDR"], "IP")
    m("masked", "cidr_masked", ["CIDR"], "CIDR")
    m("prefixLength", "cidr_prefix_length", ["CIDR"], "int")
    # -- Kubernetes Quantity
    g("quantity", "string_to_quantity", ["string"], "Quantity")
    g("isQuantity", "is_quantity_string", ["string"], "bool")
    g("sign", "quantity_sign", ["Quantity"], "int")
    m("isGreaterThan", "quantity_is_greater_than", ["Quantity", "Quantity"], "bool")
    m("isLessThan", "quantity_is_less_than", ["Quantity", "Quantity"], "bool")
    m("compareTo", "quantity_compare_to", ["Quantity", "Quantity"], "int")
    m("add", "quantity_add", ["Quantity", "Quantity"], "Quantity")
    m("add", "quantity_add_int", ["Quantity", "int"], "Quantity")
    m("sub", "quantity_sub", ["Quantity", "Quantity"], "Quantity")
    m("sub", "quantity_sub_int", ["Quantity", "int"], "Quantity")
    m("asInteger", "quantity_as_integer", ["Quantity"], "int")
    m("isInteger", "quantity_is_integer", ["Quantity"], "bool")
    m("asApproximateFloat", "quantity_as_float", ["Quantity"], "double")
    # -- Kubernetes Semver
    g("semver", "string_to_semver", ["string"], "Semver")
    g("semver", "string_bool_to_semver", ["string", "bool"], "Semver")
    g("isSemver", "is_semver_string", ["string"], "bool")
    g("isSemver", "is_semver_string_bool", ["string", "bool"], "bool")
    m("isGreaterThan", "semver_is_greater_than", ["Semver", "Semver"], "bool")
    m("isLessThan", "semver_is_less_than", ["Semver", "Semver"], "bool")
    m("compareTo", "semver_compare_to", ["Semver", "Semver"], "int")
    for fn in ("major", "minor", "patch"):
        m(fn, f"semver_{fn}", ["Semver"], "int")
    # -- Kubernetes format
    for fn in (
        "dns1123Label",
        "dns1123Subdomain",
        "dns1035Label",
        "qualifiedName",
        "dns1123LabelPrefix",
        "dns1123SubdomainPrefix",
        "dns1035LabelPrefix",
        "labelValue",
        "uri",
        "uuid",
        "byte",
        "date",
        "datetime",
    ):
        g(f"format.{fn}", f"format-{fn}", [], "NamedFormat")
    g("format.named", "format-named", ["string"], "opt(NamedFormat)")
    m("validate", "format-validate", ["NamedFormat", "string"], "opt(list(string))")
    return r


LIST_ATTR_FUNCTIONS = frozenset({"includes"})


@cache
def functions(list_type_attributes: bool) -> dict[str, tuple[Overload, ...]]:
    """Function name → overloads; ``includes`` only with list-type attributes."""
    out: dict[str, list[Overload]] = {}
    rows = _rows()
    if list_type_attributes:
        rows.append(("includes", "dra_includes", True, ["dyn", "dyn"], "bool"))
    for fn, oid, member, args, res in rows:
        out.setdefault(fn, []).append(
            Overload(oid, member, tuple(parse_sig(a) for a in args), parse_sig(res))
        )
    return {k: tuple(v) for k, v in out.items()}
