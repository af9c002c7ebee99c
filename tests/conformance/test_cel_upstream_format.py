"""Cases of k8s.io/apiserver/pkg/cel/library/format_test.go, run through dractl's CEL engine."""

from __future__ import annotations

import pytest
from cel_upstream import Case, check, params, val

LABEL_1123 = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_1123 = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    r"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
QUALIFIED = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NONE = "optional.none()"


def errs(*msgs: str) -> str:
    return "optional.of([" + ", ".join(f'r"{m}"' for m in msgs) + "])"


# the 13 named formats of the Kubernetes format library
FORMATS = (
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
)

CASES: list[Case] = [
    val("example_usage_dns1123Subdomain", 'format.dns1123Subdomain().validate("apiextensions.k8s.io")', NONE),
    val(
        "example_usage_qualifiedName", 'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', NONE
    ),
    val("example_usage_dns1123LabelPrefix", 'format.dns1123LabelPrefix().validate("my-label-prefix-")', NONE),
    val(
        "example_usage_dns1123SubdomainPrefix",
        'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")',
        NONE,
    ),
    val("example_usage_dns1035LabelPrefix", 'format.dns1035LabelPrefix().validate("my-label-prefix-")', NONE),
    val("example_usage_uri", 'format.uri().validate("http://example.com")', NONE),
    val("example_usage_uuid", 'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', NONE),
    val("example_usage_byte", 'format.byte().validate("aGVsbG8=")', NONE),
    val("example_usage_date", 'format.date().validate("2021-01-01")', NONE),
    val("example_usage_datetime", 'format.datetime().validate("2021-01-01T00:00:00Z")', NONE),
    val("dns1123Label", 'format.dns1123Label().validate("contains a space")', errs(LABEL_1123)),
    val("dns1123Subdomain", 'format.dns1123Subdomain().validate("contains a space")', errs(SUBDOMAIN_1123)),
    val("dns1035Label", 'format.dns1035Label().validate("contains a space")', errs(LABEL_1035)),
    val("qualifiedName", 'format.qualifiedName().validate("contains a space")', errs(QUALIFIED)),
    val("dns1123LabelPrefix", 'format.dns1123LabelPrefix().validate("contains a space-")', errs(LABEL_1123)),
    val(
        "dns1123SubdomainPrefix",
        'format.dns1123SubdomainPrefix().validate("contains a space-")',
        errs(SUBDOMAIN_1123),
    ),
    val("dns1035LabelPrefix", 'format.dns1035LabelPrefix().validate("contains a space-")', errs(LABEL_1035)),
    val("dns1123Label_Success", 'format.dns1123Label().validate("my-label-name")', NONE),
    val("dns1123Subdomain_Success", 'format.dns1123Subdomain().validate("example.com")', NONE),
    val("dns1035Label_Success", 'format.dns1035Label().validate("my-label-name")', NONE),
    val("qualifiedName_Success", 'format.qualifiedName().validate("my.name")', NONE),
    val("byte_success", 'format.byte().validate("aGVsbG8=")', NONE),
    val("byte_failure", 'format.byte().validate("aGVsbG8")', errs("invalid base64")),
    val("date_success", 'format.date().validate("2020-01-01")', NONE),
    val("date_failure", 'format.date().validate("2020-01-32")', errs("invalid date")),
    val("datetime_success", 'format.datetime().validate("2020-01-01T00:00:00Z")', NONE),
    val("datetime_failure", 'format.datetime().validate("2020-01-32T00:00:00Z")', errs("invalid datetime")),
    val("unknown_format", 'format.named("unknown").hasValue()', "false"),
    val("labelValue_success", 'format.labelValue().validate("my-cool-label-Value")', NONE),
    val(
        "labelValue_failure",
        'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
        errs(LABEL_VALUE),
    ),
]
for _lhs in FORMATS:
    CASES.append(val(f"lookup_{_lhs}", f'format.named("{_lhs}").hasValue()', "true"))
    CASES.append(val(f"lookup_equals_{_lhs}", f'format.named("{_lhs}").value() == format.{_lhs}()', "true"))
    CASES.extend(
        val(f"compare_{_lhs}_{_rhs}", f"format.{_lhs}() == format.{_rhs}()", "false")
        for _rhs in FORMATS
        if _rhs != _lhs
    )


@pytest.mark.parametrize("case", params(CASES))
def test_upstream_format(case: Case) -> None:
    check(case)
