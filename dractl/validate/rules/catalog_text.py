"""Texts of ``dractl … --explain RULE``: meaning, why it exists, how to fix (one line each).

Facts from API-RULES.md (the API server's rules), §12 (feature gates), §15 (advisory
checks) and dractl's own lint.  Keys are rule ids; ``SECTION`` maps a prefix to the
document section.
"""

from __future__ import annotations

E = tuple[str, str, str]  # (meaning, why, fix)

_DNS_LABEL = "use lower-case letters, digits and '-', start and end alphanumeric, at most 63 characters"
_DNS_SUB = "use lower-case DNS labels joined by '.', at most 253 characters"

TEXTS: dict[str, E] = {
    # §1 formats
    "FMT-DNS-LABEL": (
        "A DNS-1123 label: 1–63 chars of [a-z0-9-], alphanumeric at both ends.",
        "Names used in DNS-like contexts and as map keys.",
        _DNS_LABEL + ".",
    ),
    "FMT-DNS-SUBDOMAIN": (
        "A DNS-1123 subdomain: up to 253 chars, DNS labels joined by dots.",
        "Object names and class names must be valid DNS subdomains.",
        _DNS_SUB + ".",
    ),
    "FMT-C-IDENT": (
        "A C identifier [A-Za-z_][A-Za-z0-9_]*, at most 32 characters in DRA.",
        "Attribute and capacity names are used as CEL field names.",
        "Use letters, digits and '_'.",
    ),
    "FMT-LABEL-NAME": (
        "A label key: optional DNS-subdomain prefix and '/', then 1–63 chars.",
        "Taint keys, condition types and binding conditions use the label-key format.",
        "Write example.com/name or name; only alphanumerics, '-', '_' and '.' in the name.",
    ),
    "FMT-LABEL-VALUE": (
        "A label value: empty or up to 63 chars, alphanumeric at both ends.",
        "Taint and toleration values follow label-value syntax.",
        "Shorten or simplify the value.",
    ),
    "FMT-DRIVER": (
        "A driver name: required, ≤63 chars, a DNS subdomain after lower-casing.",
        "Drivers are identified like CSI drivers; the name is a domain.",
        "Use e.g. gpu.example.com.",
    ),
    "FMT-POOL": (
        "A pool name: ≤253 chars; every '/'-separated part a DNS subdomain.",
        "Pools group devices; the name is compared verbatim.",
        "Avoid empty segments and upper case.",
    ),
    "FMT-DEVICE": (
        "A device name is a DNS label.",
        "Device names form the device id driver/pool/device.",
        _DNS_LABEL,
    ),
    "FMT-REQUEST": (
        "A request or subrequest name is a DNS label.",
        "Referenced as req or req/sub.",
        _DNS_LABEL,
    ),
    "FMT-COUNTER": (
        "Counter-set and counter names are DNS labels.",
        "They are map keys in slices.",
        _DNS_LABEL,
    ),
    "FMT-CLASSREF": ("deviceClassName is a DNS subdomain.", "It names a DeviceClass object.", _DNS_SUB),
    "FMT-QUALIFIED": (
        "Attribute/capacity name: 'id' or 'domain/id'; id a C identifier ≤32, domain a driver name.",
        "These names become CEL map keys (device.attributes[domain].id).",
        "Use at most one '/', a DNS domain before it and a C identifier after it.",
    ),
    "FMT-FQN": (
        "A fully qualified name: domain/id (the domain is required).",
        "Constraints compare attributes across drivers, so the domain must be explicit.",
        "Write e.g. gpu.example.com/numaNode.",
    ),
    "FMT-NODE": ("A node name is a DNS subdomain.", "It must name a Node object.", _DNS_SUB),
    "FMT-UUID": (
        "A shareID: a UUID in lower-case 36-char form.",
        "It identifies one share of a device.",
        "Use a lower-case RFC 4122 UUID.",
    ),
    "FMT-SEMVER": (
        "A version attribute is strict SemVer 2.0.0, ≤64 chars.",
        "CEL compares versions with semver(); a bad version breaks every selector on the device.",
        "Write MAJOR.MINOR.PATCH without leading zeros (e.g. 560.35.3).",
    ),
    "FMT-EXT-RES": (
        "extendedResourceName must be a valid extended resource name (domain/name, not kubernetes.io).",
        "Pods request it in resources.limits.",
        "Use e.g. example.com/gpu.",
    ),
    "FMT-NODE-ALLOC": (
        "A node-allocatable resource name: cpu, memory or hugepages-<size>.",
        "Only these resources are accounted on the node.",
        "Use one of the allowed names.",
    ),
    "FMT-CIDR-IF": (
        "An interface address in canonical CIDR form (10.9.8.7/24).",
        "Network status data is parsed.",
        "Write the address with its prefix length, canonically.",
    ),
    "FMT-QUANTITY": (
        "A resource.Quantity: number with optional SI/binary suffix (K alone is invalid).",
        "Quantities are decoded before validation; a bad one rejects the request (400).",
        "Use e.g. 16Gi, 500m, 1k.",
    ),
    "FMT-RAWJSON": (
        "Opaque parameters/data: required, ≤10 KiB of JSON, a JSON object.",
        "Drivers receive the object verbatim; the size is limited to protect etcd.",
        "Give an object (with apiVersion/kind for the driver) and keep it small.",
    ),
    # §2 metadata
    "META-NAME-REQ": (
        "metadata.name or metadata.generateName must be set.",
        "Every object needs a name.",
        "Add metadata.name.",
    ),
    "META-NAME-FMT": (
        "metadata.name must be a DNS subdomain.",
        "Names appear in URLs and references.",
        _DNS_SUB,
    ),
    "META-GENNAME": (
        "generateName must be a valid DNS-subdomain prefix.",
        "The server appends a random suffix.",
        _DNS_SUB,
    ),
    "META-NS-REQ": (
        "ResourceClaims and templates are namespaced; the namespace must be a DNS label.",
        "Claims live next to the Pods that use them.",
        _DNS_LABEL,
    ),
    "META-NS-FORBID": (
        "Slices, classes and taint rules are cluster-scoped; a namespace is ignored on create.",
        "A namespace suggests a mistake (e.g. copying from a claim).",
        "Remove metadata.namespace.",
    ),
    "META-LABELS": (
        "Label keys must be qualified names and values valid label values.",
        "Labels are used by selectors.",
        "Fix the key or value syntax.",
    ),
    "META-ANNOT": (
        "Annotation keys must be qualified names; all annotations ≤256 KiB together.",
        "Large annotations slow down every watcher.",
        "Shorten or move data elsewhere.",
    ),
    "META-GENERATION": ("metadata.generation must not be negative.", "The server manages it.", "Remove it."),
    # §3 ResourceSlice
    "RS-DRIVER": (
        "spec.driver is required and a valid driver name.",
        "Devices belong to a driver.",
        "Set spec.driver.",
    ),
    "RS-POOL-NAME": (
        "spec.pool.name is required and a valid pool name.",
        "Slices are grouped into pools.",
        "Set spec.pool.name (often the node name).",
    ),
    "RS-POOL-GEN": (
        "spec.pool.generation must be ≥ 0.",
        "Consumers use the newest generation.",
        "Use 0 or more.",
    ),
    "RS-POOL-COUNT": (
        "spec.pool.resourceSliceCount must be > 0.",
        "The scheduler waits until a pool is complete.",
        "Set it to the number of slices of the pool (usually 1).",
    ),
    "RS-NODESEL-ONE": (
        "Exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection.",
        "The scheduler must know where the devices are reachable.",
        "Keep exactly one of them.",
    ),
    "RS-NODENAME-NONEMPTY": (
        'nodeName: "" is invalid in v1/v1beta2 (unset it instead).',
        "Empty means unset only in v1beta1.",
        "Remove the field or name a node.",
    ),
    "RS-NODENAME-FMT": ("nodeName must be a valid node name.", "It names a Node.", _DNS_SUB),
    "RS-ALLNODES-TRUE": (
        "allNodes: false is invalid in v1/v1beta2 (unset it instead).",
        "Only true has a meaning.",
        "Remove the field or set true.",
    ),
    "RS-PERDEV-TRUE": (
        "perDeviceNodeSelection: false is invalid.",
        "Only true has a meaning.",
        "Remove the field or set true.",
    ),
    "RS-NODESELECTOR": (
        "A slice nodeSelector must have exactly one term.",
        "Simplifies merging selectors of devices from several slices.",
        "Use one term.",
    ),
    "RS-DEVICES-XOR-COUNTERS": (
        "A slice has either sharedCounters or devices (since 1.35).",
        "Counter sets are published in their own slice of the pool.",
        "Move sharedCounters to a separate slice of the same pool.",
    ),
    "RS-DEVICES-MAX": (
        "≤128 devices per slice; ≤64 when any device uses taints, counters or list attributes.",
        "Keeps slices and scheduler work bounded.",
        "Split the devices over more slices.",
    ),
    "RS-DEVICES-UNIQUE": (
        "Device names are unique within a slice.",
        "The device id must be unique.",
        "Rename the duplicate.",
    ),
    "RS-COUNTERSETS-MAX": ("≤8 counter sets per slice.", "Bounded size.", "Split across slices."),
    "RS-COUNTERSETS-UNIQUE": (
        "Counter-set names are unique in a slice.",
        "Devices refer to sets by name.",
        "Rename the duplicate.",
    ),
    "RS-COUNTERSET-NAME": ("A counter set needs a DNS-label name.", "Devices refer to it.", "Set name."),
    "RS-COUNTERSET-COUNTERS": (
        "A counter set has 1–32 counters with DNS-label names.",
        "Bounded size.",
        "Add counters / fix names.",
    ),
    "RS-PARTTYPE": (
        "partitionTypeAttribute: gated (Forbidden when off); names a string attribute every "
        "counter-consuming device carries.",
        "Groups partitions by type for the scheduler.",
        "Enable DRAPartitionableDevicesType, or remove it; give each consuming device that attribute.",
    ),
    "RS-SKIPOPS": (
        "skipNodeOperations: a set of NodePrepareResources, NodeUnprepareResources, '*'; prepare "
        "can only be skipped together with unprepare.",
        "Kubelet must not leave state behind.",
        "Add NodeUnprepareResources or use '*'.",
    ),
    "RS-DEV-NAME": ("Every device needs a DNS-label name.", "Part of the device id.", _DNS_LABEL),
    "RS-DEV-ATTRCAP-MAX": ("≤32 attributes plus capacities per device.", "Bounded CEL cost.", "Drop some."),
    "RS-DEV-ATTRVALUES-MAX": (
        "≤48 attribute values per device (a list counts its length).",
        "Bounded size.",
        "Shorten the lists.",
    ),
    "RS-ATTR-KEY": ("Attribute names are qualified names.", "Used in CEL.", "See FMT-QUALIFIED."),
    "RS-ATTR-ONEOF": (
        "An attribute sets exactly one of int, bool, string, version (or a list form).",
        "The value has one type.",
        "Keep one value field (and check its spelling).",
    ),
    "RS-ATTR-STRING": ("String attribute values are ≤64 bytes.", "Bounded size.", "Shorten the value."),
    "RS-ATTR-VERSION": (
        "version attributes are strict SemVer, ≤64 chars.",
        "See FMT-SEMVER.",
        "Fix the version (no leading zeros, three parts) or publish it as a string.",
    ),
    "RS-ATTR-LIST-NONEMPTY": (
        "A list attribute must not be empty.",
        "An empty list has no type.",
        "Remove it.",
    ),
    "RS-ATTR-LIST-ITEMS": (
        "List items follow the scalar rules (strings ≤64 bytes, versions SemVer).",
        "Same as scalars.",
        "Fix the item.",
    ),
    "RS-CAP-KEY": ("Capacity names are qualified names.", "Used in CEL.", "See FMT-QUALIFIED."),
    "RS-CAP-VALUE": (
        "capacity.value is any parsable quantity.",
        "Decoded as a Quantity.",
        "See FMT-QUANTITY.",
    ),
    "RS-CAP-POLICY-NEEDS-MULTI": (
        "requestPolicy needs allowMultipleAllocations: true on the device.",
        "Only shared devices hand out parts of a capacity.",
        "Set allowMultipleAllocations: true or drop requestPolicy.",
    ),
    "RS-CAP-POLICY-ONEOF": (
        "validValues and validRange are mutually exclusive.",
        "One policy per capacity.",
        "Keep one.",
    ),
    "RS-CAP-POLICY-DEFAULT": (
        "default is required with validValues or validRange.",
        "Claims that don't ask get the default.",
        "Add requestPolicy.default.",
    ),
    "RS-CAP-VALIDVALUES": (
        "validValues: ≤10, ascending, unique, ≤ capacity; default must be one of them.",
        "The scheduler rounds requests up to the next valid value.",
        "Fix the list.",
    ),
    "RS-CAP-RANGE": (
        "validRange: min required, min ≤ max ≤ capacity, min ≤ default ≤ max, step > 0 and "
        "default/max on the step grid.",
        "Requests are rounded to the grid.",
        "Fix the bounds.",
    ),
    "RS-CAP-RANGE-INT": (
        "With step on the integer path, values must be in [0, 2^63-1].",
        "Int64 arithmetic.",
        "Use non-negative values that fit int64.",
    ),
    "RS-CAP-RANGE-MILLI": (
        "Fractional range values must be exact in milli-units.",
        "Milli arithmetic.",
        "Use at most 3 decimals.",
    ),
    "RS-TAINTS-MAX": ("≤16 taints per device (4 in 1.34).", "Bounded size.", "Use fewer taints."),
    "RS-TAINT-KEY": ("Taint key is required and a label key.", "Tolerations match by key.", "Fix the key."),
    "RS-TAINT-VALUE": ("Taint value is a label value.", "Tolerations match by value.", "Fix the value."),
    "RS-TAINT-EFFECT": (
        "Taint effect is required: NoSchedule, NoExecute or None (None since 1.35).",
        "The effect decides scheduling/eviction.",
        "Use a supported effect.",
    ),
    "RS-TAINT-NODUPCHECK": (
        "Duplicate taints on a device are not rejected.",
        "Fact.",
        "Remove duplicates anyway.",
    ),
    "RS-DEV-NODESEL-TERMS": (
        "A device-level nodeSelector is not limited to one term by the server.",
        "Fact.",
        "Use one term as documented (ADV-DEV-NODESEL-1TERM warns).",
    ),
    "RS-CAP-UNCHANGED-SKIP": ("On update, capacity is re-validated only if it changed.", "Fact.", "—"),
    "RS-CONSUMES-MAX": ("≤2 consumesCounters entries per device.", "Bounded size.", "Merge entries."),
    "RS-CONSUMES-UNIQUE": (
        "One consumesCounters entry per counter set.",
        "Amounts are per set.",
        "Merge them.",
    ),
    "RS-CONSUMES-SET": (
        "consumesCounters[].counterSet is required, a DNS label.",
        "Names a counter set.",
        "Set counterSet.",
    ),
    "RS-CONSUMES-COUNTERS": (
        "consumesCounters[].counters: 1–32 entries with DNS-label names.",
        "Bounded size.",
        "Fix the counters.",
    ),
    "RS-COMPAT-GROUPS": ("compatibilityGroups: ≤2 unique DNS labels.", "Bounded size.", "Fix the list."),
    "RS-DEV-NODESEL-PERDEV": (
        "With perDeviceNodeSelection every device sets exactly one of nodeName, nodeSelector, "
        "allNodes: true.",
        "Each device says where it is reachable.",
        "Set exactly one.",
    ),
    "RS-DEV-NODESEL-FORBID": (
        "Device-level nodeName/nodeSelector/allNodes need spec.perDeviceNodeSelection: true.",
        "Otherwise the slice-level field decides.",
        "Set perDeviceNodeSelection or remove them.",
    ),
    "RS-BINDING-MAX": (
        "≤4 bindingConditions and ≤4 bindingFailureConditions.",
        "Bounded size.",
        "Use fewer.",
    ),
    "RS-BINDING-FMT": (
        "Binding condition names are label keys.",
        "They are condition types.",
        "Fix the name.",
    ),
    "RS-BINDING-UNIQUE": ("No duplicate binding conditions.", "Set semantics.", "Remove the duplicate."),
    "RS-BINDING-DISJOINT": (
        "A condition can't be both a binding and a failure condition.",
        "Contradictory.",
        "Remove it from one list.",
    ),
    "RS-BINDING-PAIR": (
        "bindingConditions and bindingFailureConditions come together.",
        "Without failure conditions a binding could wait forever.",
        "Set both or neither.",
    ),
    "RS-NODEALLOC-KEY": (
        "nodeAllocatableResources keys: cpu, memory, hugepages-*.",
        "Node accounting.",
        "Use an allowed name.",
    ),
    "RS-NODEALLOC-ONEOF": (
        "Each entry sets mapping and/or overhead.",
        "An empty entry means nothing.",
        "Add one.",
    ),
    "RS-NODEALLOC-MAPPING": (
        "mapping: exactly one of capacityKey (with capacityMultiplier) / deviceMultiplier; "
        "capacityKey names a capacity of the device; multipliers > 0.",
        "Accounting.",
        "Fix the mapping.",
    ),
    "RS-NODEALLOC-OVERHEAD": (
        "overhead: perPod and/or perContainer, each ≥ 0.",
        "Accounting.",
        "Fix values.",
    ),
    # §4 claims
    "RC-REQ-MAX": ("≤32 requests per claim.", "Bounded size.", "Split the claim."),
    "RC-REQ-UNIQUE": ("Request names are unique in a claim.", "Referenced by name.", "Rename."),
    "RC-REQ-NAME": ("Request name is required, a DNS label.", "Containers reference it.", _DNS_LABEL),
    "RC-REQ-ONEOF": (
        "A request sets exactly one of exactly / firstAvailable.",
        "Since v1 the single-request fields live under exactly.",
        "Move deviceClassName etc. under exactly: (a v1beta1-shaped request is the usual cause).",
    ),
    "RC-FA-MAX": ("≤8 firstAvailable subrequests.", "Bounded search.", "Use fewer alternatives."),
    "RC-FA-UNIQUE": ("Subrequest names unique within the request.", "Referenced as req/sub.", "Rename."),
    "RC-FA-NAME": ("Subrequest name is a DNS label.", "Referenced as req/sub.", _DNS_LABEL),
    "RC-CLASS": (
        "deviceClassName is required (exactly and subrequests), a DNS subdomain.",
        "The class selects the driver's devices.",
        "Name an existing DeviceClass.",
    ),
    "RC-SEL-MAX": ("≤32 selectors per request.", "Bounded CEL cost.", "Combine selectors with &&."),
    "RC-SEL-CEL-REQ": (
        "Every selector sets cel:.",
        "CEL is the only selector type.",
        "Nest expression under cel: (cel:\\n  expression: …).",
    ),
    "RC-ALLOC-MODE": (
        "allocationMode is ExactCount or All (default ExactCount).",
        "Enum.",
        "Use a supported value.",
    ),
    "RC-COUNT-EXACT": (
        "With ExactCount, count must be > 0 (unset means 1).",
        "A request asks for devices.",
        "Use a positive count.",
    ),
    "RC-COUNT-ALL": (
        "With allocationMode All, count must not be set.",
        "All takes every matching device.",
        "Remove count.",
    ),
    "RC-ADMIN-WHERE": ("adminAccess exists only on exactly (not on subrequests).", "Schema.", "Move it."),
    "RC-ADMIN-NS": (
        'adminAccess: true needs the namespace label resource.kubernetes.io/admin-access: "true".',
        "Admin access bypasses allocation; only privileged namespaces may use it.",
        "Label the namespace, or drop adminAccess.",
    ),
    "RC-TOL-KEY": ("Toleration key, if set, is a label key.", "Matches taint keys.", "Fix the key."),
    "RC-TOL-OP": ("Toleration operator: Equal (default) or Exists.", "Enum.", "Use Equal or Exists."),
    "RC-TOL-VALUE": (
        "Exists needs an empty value; Equal needs a label value.",
        "Matching semantics.",
        "Drop the value for Exists.",
    ),
    "RC-TOL-EFFECT": (
        "Toleration effect, if set: NoSchedule, NoExecute or None.",
        "Enum.",
        "Use a valid effect.",
    ),
    "RC-TOL-SECONDS": ("tolerationSeconds is not validated.", "Fact.", "—"),
    "RC-DERIVED-MAX": ("≤32 derivedAttributes per request.", "Bounded cost.", "Use fewer."),
    "RC-DERIVED-UNIQUE": (
        "Derived attribute names unique per request.",
        "Referenced by constraints.",
        "Rename.",
    ),
    "RC-DERIVED-NAME": (
        "Derived attribute name required, fully qualified.",
        "Used by constraints.",
        "Write domain/name.",
    ),
    "RC-DERIVED-EXPR": (
        "Derived attribute expression required; CEL returning a scalar.",
        "Computed per device.",
        "Add the expression.",
    ),
    "RC-DERIVED-USED": (
        "A derived attribute must be used by a matchAttribute/distinctAttribute constraint of the request.",
        "Otherwise it has no effect.",
        "Add the constraint or remove it.",
    ),
    "RC-DERIVED-COST": (
        "The derived expressions of a claim together cost ≤1,000,000.",
        "Bounded scheduling.",
        "Simplify the expressions.",
    ),
    "RC-CEL-LEN": ("A CEL expression is ≤10 KiB.", "Not compiled when longer.", "Shorten it."),
    "RC-CEL-COMPILE": (
        "The expression must compile in the DRA CEL environment.",
        "The API server type-checks every new selector.",
        "Fix the syntax/names (dractl selector check shows details).",
    ),
    "RC-CEL-TYPE": (
        "A selector must evaluate to bool.",
        "It decides whether a device matches.",
        'Compare the value (e.g. == "x").',
    ),
    "RC-CEL-COST": (
        "Estimated worst-case cost ≤1,000,000.",
        "Bounded scheduler work.",
        "Avoid nested loops over attributes; simplify.",
    ),
    "RC-CEL-ENV": ("Variables: device.driver, attributes, capacity, allowMultipleAllocations.", "Fact.", "—"),
    "RC-CEL-STORED": ("Only new or changed expressions are compiled.", "Stored objects stay valid.", "—"),
    "RC-CEL-INTERNAL": ("Environment errors are Internal errors.", "Fact.", "—"),
    "RC-CON-MAX": ("≤32 constraints.", "Bounded size.", "Use fewer."),
    "RC-CON-REQS": (
        "constraints[].requests: ≤32 unique references to requests.",
        "Scope of the constraint.",
        "Fix the names.",
    ),
    "RC-CON-ATTR": (
        "A constraint sets matchAttribute or distinctAttribute (fully qualified).",
        "The attribute compared across devices.",
        "Set one, with a domain.",
    ),
    "RC-CON-BOTH": (
        "Both matchAttribute and distinctAttribute are accepted; only matchAttribute is validated.",
        "Fact.",
        "Use one per constraint.",
    ),
    "RC-CON-DISTINCT-GATE": (
        "distinctAttribute is dropped while DRAConsumableCapacity is off.",
        "Gate.",
        "Enable the gate or use matchAttribute.",
    ),
    "RC-REF": (
        "A request reference is req or req/sub naming a request (subrequest) of the claim.",
        "Constraints/config/results refer to requests by name.",
        "Fix the name.",
    ),
    "RC-CFG-MAX": ("≤32 config entries.", "Bounded size.", "Merge entries."),
    "RC-CFG-REQS": ("config[].requests: ≤32 unique request references.", "Scope.", "Fix the names."),
    "RC-CFG-OPAQUE": (
        "config[].opaque is required.",
        "The only config type.",
        "Add opaque: {driver, parameters}.",
    ),
    "RC-CFG-DRIVER": (
        "opaque.driver is a valid driver name.",
        "Config goes to that driver.",
        "Fix the name.",
    ),
    "RC-CFG-PARAMS": (
        "opaque.parameters: required JSON object ≤10 KiB.",
        "See FMT-RAWJSON.",
        "Fix parameters.",
    ),
    "RC-TOL-MAX-UNENFORCED": ("The documented 16-toleration limit is not enforced.", "Fact.", "—"),
    "RC-CAPREQ-UNCHECKED": ("capacity.requests are only decoded, not validated.", "Fact.", "—"),
    # §5 status
    "RCS-RESERVED-MAX": ("≤256 reservedFor entries.", "Bounded size.", "—"),
    "RCS-RESERVED-UNIQUE": ("reservedFor unique by uid.", "One entry per consumer.", "Remove duplicates."),
    "RCS-RESERVED-FIELDS": (
        "reservedFor entries need resource, name, uid.",
        "Identify the consumer.",
        "Fill them.",
    ),
    "RCS-RESERVED-NEEDS-ALLOC": (
        "reservedFor needs an allocation.",
        "Only allocated claims can be reserved.",
        "Add the allocation or drop reservedFor.",
    ),
    "RCS-RESERVED-DELETING": ("No new reservations while the claim is being deleted.", "Deallocation.", "—"),
    "RCS-ALLOC-IMMUTABLE": (
        "status.allocation can't be modified once set.",
        "Devices are prepared.",
        "Remove and re-allocate instead.",
    ),
    "RCS-RESULTS-MAX": ("≤32 allocation results.", "Bounded size.", "—"),
    "RCS-RESULT-REQ": (
        "results[].request names a request (req or req/sub) of the claim.",
        "Links results.",
        "Fix the name.",
    ),
    "RCS-RESULT-IDS": ("results[] driver, pool, device are valid names.", "Device id.", "Fix them."),
    "RCS-RESULT-BINDING": (
        "Result binding conditions follow RS-BINDING-*.",
        "Same rules.",
        "See RS-BINDING-*.",
    ),
    "RCS-RESULT-TOL": ("Result tolerations follow RC-TOL-*.", "Same rules.", "See RC-TOL-*."),
    "RCS-RESULT-SHAREID": ("shareID is a lower-case UUID.", "Identifies a share.", "See FMT-UUID."),
    "RCS-RESULT-SKIPOPS": ("Result skipNodeOperations follow RS-SKIPOPS.", "Same rules.", "See RS-SKIPOPS."),
    "RCS-ALLOC-CFG-MAX": ("≤64 allocation config entries.", "Class + claim config.", "—"),
    "RCS-ALLOC-CFG-SOURCE": (
        "config[].source is FromClass or FromClaim.",
        "Where config came from.",
        "Use a supported value.",
    ),
    "RCS-ALLOC-CFG-REST": (
        "Allocation config requests and opaque follow RC-CFG-*.",
        "Same rules.",
        "Fix them.",
    ),
    "RCS-ALLOC-NODESEL": (
        "allocation.nodeSelector is a valid node selector.",
        "Pods are scheduled by it.",
        "Fix the selector.",
    ),
    "RCS-ADMIN-NS": (
        "Results granting adminAccess need the namespace label.",
        "As RC-ADMIN-NS.",
        "Label it.",
    ),
    "RCS-DEV-UNIQUE": (
        "status.devices unique by driver/pool/device/shareID.",
        "One status per device.",
        "Remove duplicates.",
    ),
    "RCS-DEV-ALLOCATED": (
        "status.devices entries must be allocated devices of the claim.",
        "Status of devices the claim got.",
        "Match an allocation result.",
    ),
    "RCS-DEV-IDS": ("status.devices driver/pool/device/shareID formats.", "Device id.", "Fix them."),
    "RCS-DEV-CONDITIONS": (
        "≤8 conditions; metav1.Condition rules (type, status, reason, time).",
        "Standard conditions.",
        "Fix the condition.",
    ),
    "RCS-DEV-DATA": ("status.devices[].data: JSON object ≤10 KiB.", "Driver data.", "Shrink it."),
    "RCS-NET-IFNAME": ("networkData.interfaceName ≤256 bytes.", "Bounded.", "Shorten."),
    "RCS-NET-HWADDR": ("networkData.hardwareAddress ≤128 bytes.", "Bounded.", "Shorten."),
    "RCS-NET-IPS": (
        "networkData.ips: ≤16 unique canonical CIDR addresses.",
        "Parsed by consumers.",
        "Use canonical ip/prefix.",
    ),
    "RCS-DEALLOC-CLEANUP": ("Status of devices no longer allocated is dropped.", "Fact.", "—"),
    # §6–8
    "RCT-META": ("Templates are namespaced with DNS-subdomain names.", "As claims.", "See META-*."),
    "RCT-TMPL-META": (
        "spec.metadata may contain only labels and annotations.",
        "Generated claims get their own name and namespace.",
        "Remove the other fields.",
    ),
    "RCT-SPEC": ("spec.spec is validated like a ResourceClaim spec.", "It becomes one.", "See RC-*."),
    "RCT-ADMIN": ("adminAccess in a template needs the namespace label too.", "As RC-ADMIN-NS.", "Label it."),
    "DC-META": ("DeviceClass: cluster-scoped, DNS-subdomain name.", "Referenced by claims.", _DNS_SUB),
    "DC-SEL": (
        "DeviceClass selectors: ≤32, each with cel (RC-CEL-* apply).",
        "Selects the class's devices.",
        "Fix the selector.",
    ),
    "DC-CFG": (
        "DeviceClass config: ≤32 entries, each opaque with driver and parameters.",
        "Config for the driver.",
        "Fix the entry.",
    ),
    "DC-EXTRES": (
        "extendedResourceName must be a valid extended resource name.",
        "Pods request it.",
        "Use e.g. example.com/gpu.",
    ),
    "DC-EXTRES-UNIQUE-ADVISORY": (
        "extendedResourceName should be unique among classes.",
        "Newest wins.",
        "Use distinct names.",
    ),
    "DC-MUTABLE": ("DeviceClass spec is mutable.", "Fact.", "—"),
    "DTR-META": ("DeviceTaintRule: cluster-scoped, DNS-subdomain name.", "Object naming.", _DNS_SUB),
    "DTR-SEL-OPTIONAL": ("deviceSelector is optional; without it no device matches.", "Fact.", "—"),
    "DTR-SEL-FIELDS": (
        "deviceSelector driver/pool/device are valid names when set.",
        "They select devices.",
        "Fix them.",
    ),
    "DTR-SEL-REMOVED": (
        "deviceClassName and CEL selectors were removed in 1.35.",
        "Simplified selection.",
        "Use driver/pool/device.",
    ),
    "DTR-TAINT": (
        "spec.taint: key (label key), value (label value), effect None/NoSchedule/NoExecute.",
        "The taint applied to the devices.",
        "Fix the taint.",
    ),
    "DTR-TIMEADDED": ("taint.timeAdded defaults to now.", "Fact.", "—"),
    "DTR-STATUS": ("status.conditions ≤8, metav1.Condition rules.", "Status subresource.", "Fix conditions."),
    "DTR-GENERATION": ("generation is managed by the server.", "Fact.", "—"),
    "CORE-NS-TERMS": (
        "A node selector needs at least one term.",
        "An empty selector matches nothing.",
        "Add a term.",
    ),
    "CORE-NS-EXPR-OP": (
        "matchExpressions operator In/NotIn (values), Exists/DoesNotExist (no values), Gt/Lt (one value).",
        "Node-affinity semantics.",
        "Fix operator/values.",
    ),
    "CORE-NS-EXPR-KEY": (
        "matchExpressions key is a label key; values are label values.",
        "Label matching.",
        "Fix them.",
    ),
    "CORE-NS-FIELDS": (
        "matchFields: key metadata.name, operator In/NotIn with one node name.",
        "Only the node name is a selectable field.",
        "Fix the field selector.",
    ),
    # §10–11
    "UPD-RC-SPEC": ("ResourceClaim spec is immutable.", "Allocation depends on it.", "Create a new claim."),
    "UPD-RCT-SPEC": (
        "ResourceClaimTemplate spec is immutable.",
        "Claims were generated from it.",
        "Create a new template.",
    ),
    "UPD-RS-FIELDS": (
        "ResourceSlice driver, pool.name and nodeName are immutable.",
        "Identity of the slice.",
        "Delete and recreate.",
    ),
    "UPD-RCS-ALLOC": ("status.allocation can't be modified.", "See RCS-ALLOC-IMMUTABLE.", "—"),
    "UPD-META": ("name, namespace, uid, creationTimestamp are immutable.", "Identity.", "Keep them."),
    "UPD-STORED-RELAX": ("CEL and parameter size checks apply only to new content.", "Fact.", "—"),
    "DEF-ALLOCMODE": ("Empty allocationMode becomes ExactCount.", "Defaulting.", "—"),
    "DEF-COUNT": ("ExactCount with count 0/unset becomes count 1.", "Defaulting.", "—"),
    "DEF-TOL-OP": ("Empty toleration operator becomes Equal.", "Defaulting.", "—"),
    "DEF-TIMEADDED": ("Unset taint timeAdded becomes now.", "Defaulting.", "—"),
    "DEF-V1BETA1-NODE": ('v1beta1 nodeName: "" / allNodes: false mean unset.', "Conversion.", "—"),
    # §13 warnings, §15 advisory, lint
    "WARN-DROPPED-FIELD": (
        "The field's feature gate is off in the target release: the API server drops it silently.",
        "The object then behaves as if the field were absent (and may fail another rule).",
        "Enable the gate (--feature-gates Name=true) or remove the field.",
    ),
    "WARN-STATUS-IGNORED": (
        "status in a create manifest is discarded.",
        "Status is written via the status subresource.",
        "Remove status, or validate it with --status.",
    ),
    "WARN-DEPRECATED-VERSION": (
        "The API version is deprecated in the target release.",
        "It will be removed.",
        "Use resource.k8s.io/v1.",
    ),
    "WARN-NOT-SERVED": ("Alpha versions are served only when enabled.", "Policy.", "Use v1."),
    "WARN-UNKNOWN-FIELD": (
        "Unknown fields are errors with strict validation, warnings otherwise.",
        "Decoding.",
        "Fix the field name.",
    ),
    "WARN-FINALIZER": ("Finalizer names should be domain-qualified.", "Generic.", "Use example.com/name."),
    "ADV-POOL-CONSISTENT": (
        "Slices of a pool share generation and resourceSliceCount, and all slices of the newest "
        "generation are present.",
        "The scheduler ignores incomplete or outdated pools.",
        "Publish every slice of the pool with the same generation and count.",
    ),
    "ADV-DEVICE-UNIQUE-POOL": (
        "Device names are unique across the slices of a pool.",
        "The server checks only one slice; duplicates break allocation.",
        "Rename.",
    ),
    "ADV-COUNTERSET-EXISTS": (
        "consumesCounters names counter sets/counters of the same pool.",
        "Since 1.35 they live in other slices, so the server can't check.",
        "Define the set in a sharedCounters slice of the pool.",
    ),
    "ADV-CLASS-EXISTS": (
        "deviceClassName names a DeviceClass of the inputs or the cluster.",
        "Scheduling fails until the class exists.",
        "Create the class or fix the name.",
    ),
    "ADV-TEMPLATE-EXISTS": (
        "A Pod or workload pod template names a ResourceClaimTemplate of the inputs or the cluster.",
        "The claim controller cannot create the pod's claim, so the pod never starts.",
        "Create the template in the pod's namespace (or give it as context with --snapshot), or fix it.",
    ),
    "ADV-CLAIM-EXISTS": (
        "A Pod or workload pod template names a ResourceClaim of the inputs or the cluster.",
        "The pod stays pending until the claim exists in its namespace.",
        "Create the claim in the pod's namespace, or fix the name.",
    ),
    "DRACTL-IGNORE-INVALID": (
        "A dractl.io/ignore annotation must be 'RULE[,RULE]: reason', naming known rules.",
        "An exception without a reason cannot be reviewed; a misspelled rule would silence nothing.",
        'Write e.g. `dractl.io/ignore: "ADV-CLASS-EXISTS: installed by the gpu-operator chart"`.',
    ),
    "ADV-TOL-16": (
        "More than 16 tolerations (documented, not enforced).",
        "May be enforced later.",
        "Use fewer.",
    ),
    "ADV-CON-BOTH": ("Both matchAttribute and distinctAttribute set.", "Only one is used.", "Keep one."),
    "ADV-DEV-NODESEL-1TERM": ("A device nodeSelector should have one term.", "Documented.", "Use one term."),
    "ADV-DRIVER-LOWERCASE": (
        "Driver names should be lower case.",
        "Accepted, but compared verbatim elsewhere.",
        "Lower-case it.",
    ),
    "ADV-EXTRES-UNIQUE": ("extendedResourceName unique across classes.", "The newest class wins.", "Rename."),
    "LINT-COUNTER-EXCEEDS": (
        "A device consumes more of a counter than the set holds.",
        "It can never be allocated.",
        "Fix the amounts.",
    ),
    "LINT-DUPLICATE-UUID": (
        "Two devices publish the same uuid.",
        "Usually a copy/paste or discovery bug.",
        "Publish each device's own uuid.",
    ),
    "LINT-DEVICES-AND-COUNTERS": (
        "devices and sharedCounters in one slice.",
        "Rejected from 1.35.",
        "Split the slice.",
    ),
    "LINT-SELECTOR-UNKNOWN-ATTRIBUTE": (
        "A selector references an attribute/capacity that no device of that domain publishes (0 of N).",
        "The selector fails at runtime or never matches.",
        "Check the name against `kubectl get resourceslices -o yaml`.",
    ),
    "LINT-SELECTOR-NO-MATCH": (
        "Class and request selectors match none of the input devices.",
        "The claim stays pending.",
        "Relax the selectors (dractl selector check).",
    ),
    "LINT-REQUEST-EXCEEDS-NODE": (
        "More devices requested than any node offers.",
        "Devices of one claim must be on one node.",
        "Lower count or add devices.",
    ),
    "LINT-DTR-EMPTY-SELECTOR": (
        "An empty deviceSelector taints every device in the cluster.",
        "With NoExecute it evicts every pod using a device.",
        "Select a driver, pool or device.",
    ),
    "LINT-DTR-NO-SELECTOR": (
        "A DeviceTaintRule without deviceSelector: documented to match no device; before v1.37.1 "
        "(kubernetes PR #141648) the scheduler's taint tracker applied it to every device.",
        "Up to v1.37.0 no pod gets a DRA device unless it tolerates the taint; from v1.37.1 it does nothing.",
        "Add spec.deviceSelector naming the driver, pool or device to taint (deviceSelector: {} for all).",
    ),
    "LINT-TOLERATION-NOTHING": (
        "A toleration that matches no taint.",
        "It has no effect.",
        "Use operator Exists or the taint's key.",
    ),
}

SECTION: dict[str, str] = {
    "FMT": "§1",
    "META": "§2",
    "RS": "§3",
    "RC": "§4",
    "RCS": "§5",
    "RCT": "§6",
    "DC": "§7",
    "DTR": "§8",
    "CORE": "§9",
    "UPD": "§10",
    "DEF": "§11",
    "WARN": "§13",
    "ADV": "§15",
    "SCH": "§15a",
    "LINT": "dractl lint",
}
