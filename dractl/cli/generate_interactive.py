"""``dractl generate claim --interactive``: Rich prompts on stderr, the manifest on stdout.

Offers the classes, attributes (with their values and device counts) and capacities of the
cluster objects given with ``-f``/``--snapshot``, builds the claim with the same engine as the
flags, and before returning shows on which nodes it would fit (the explain engine).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from dractl.cli.env import CliEnv
from dractl.errors import UsageError

_TOP = 6  # values shown per attribute


def interactive_claim(
    env: CliEnv,
    kind: str,
    context: Any,
    files: list[str],
    snapshot: str | None,
    name: str | None,
    namespace: str | None,
    kube_version: str,
    features: Any,
) -> list[dict[str, Any]]:
    from rich.prompt import Confirm, IntPrompt, Prompt

    from dractl.generate import ClaimSpec, RequestSpec, claim_doc
    from dractl.generate.catalog import catalog

    con = env.err
    cat = catalog(d.raw for d in context.docs) if context is not None else catalog([])
    if context is None:
        con.print("No -f/--snapshot given: nothing to offer, type names yourself.")
    name = name or Prompt.ask("Claim name", console=con, default="my-claim") or ""
    namespace = namespace or Prompt.ask("Namespace", console=con, default="default") or "default"
    for i, c in enumerate(cat.classes, 1):
        con.print(f"  {i}) {c}")
    answer = Prompt.ask(
        "DeviceClass (number or name)", console=con, default=cat.classes[0] if cat.classes else None
    )
    device_class = _pick(answer or "", cat.classes)
    count = IntPrompt.ask("How many devices", console=con, default=1)
    domain = device_class if "." in device_class else None
    attrs = _ask_many(
        con,
        "Attribute condition (e.g. productName~='A100'; empty: done)",
        _offer(cat.attributes, domain),
        Prompt,
    )
    caps = _ask_many(
        con,
        "Minimum capacity NAME=QUANTITY (e.g. memory=40Gi; empty: done)",
        _offer(cat.capacities, domain),
        Prompt,
    )
    spec = ClaimSpec(
        name=name,
        namespace=namespace,
        features=features,
        request=RequestSpec(
            device_class=device_class, count=count, attrs=tuple(attrs), min_capacity=tuple(caps)
        ),
    )
    try:
        doc = claim_doc(spec, kind)
    except UsageError as e:
        raise UsageError(e.message, "generate claim") from None
    if files or snapshot:
        con.print(_fits(doc, files, snapshot, namespace, kube_version))
    if not Confirm.ask("Write it", console=con, default=True):
        raise UsageError("not written (answered no)", "generate claim")
    return [doc]


def _pick(answer: str, choices: list[str]) -> str:
    answer = answer.strip()
    if answer.isdigit() and 1 <= int(answer) <= len(choices):
        return choices[int(answer) - 1]
    return answer


def _offer(found: dict[str, Any], domain: str | None) -> list[str]:
    lines = []
    if domain and any(q.startswith(domain + "/") for q in found):  # the class's driver, plus standard ones
        found = {q: v for q, v in found.items() if q.startswith((domain + "/", "resource.kubernetes.io/"))}
    for qualified, values in sorted(found.items()):
        shown = qualified.split("/", 1)[1] if domain and qualified.startswith(domain + "/") else qualified
        top = ", ".join(f"{v} ({n})" for v, n in values.most_common(_TOP))
        more = f", … {len(values) - _TOP} more" if len(values) > _TOP else ""
        lines.append(f"  {shown}: {top}{more}")
    return lines


def _ask_many(con: Any, question: str, offer: list[str], prompt: Any) -> list[str]:
    for line in offer:
        con.print(line, soft_wrap=True)
    out: list[str] = []
    while True:
        answer = prompt.ask(question, console=con, default="", show_default=False).strip()
        if not answer:
            return out
        out.append(answer)


def _fits(
    doc: dict[str, Any], files: list[str], snapshot: str | None, namespace: str, kube_version: str
) -> str:
    """One line: the nodes this claim would be allocated on now (explain-allocation's verdict)."""
    from dractl.explain import inputs as inp
    from dractl.explain.engine import ExplainOptions, explain
    from dractl.generate import dump
    from dractl.model.features import Features

    features = Features.for_version(kube_version)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "claim.yaml")
        with open(path, "w") as fh:
            fh.write(dump([doc]))
        world = inp.load_world(inp.world_sources(files, snapshot), namespace)
        spec, extra = inp.target_spec([path], [], None, namespace, kube_version, features)
        report = explain(
            inp.merge(world, extra), spec, ExplainOptions(features=features, kube_version=kube_version)
        )
    data = report.to_dict()
    fit = [n["name"] for n in data.get("nodes", []) if n.get("status") == "allocated"]
    if fit:
        return f"Fits on {len(fit)} node(s): {', '.join(fit)}"
    return f"Fits on no node: {data.get('summary', {}).get('message', '')}"
