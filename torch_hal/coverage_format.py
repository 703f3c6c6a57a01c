"""Rendering a coverage report (torch_hal/op_coverage.py) as text, Markdown or JSON."""
import dataclasses
import json
import textwrap

from torch_hal.op_coverage import CATEGORIES, CoverageReport

_WIDTH = 110


def _header_lines(report: CoverageReport) -> list:
    memory = "host-accessible memory" if report.host_accessible else "memory the CPU cannot address"
    kernels = {
        "no_native_kernels": "the adapter launches no native kernels",
        "decided_at_launch": "the adapter decides at each launch (it has no op_supported)",
        "op_supported": "native dtypes as the adapter's op_supported answers",
    }[report.native_kernels]
    return [f"op coverage of {report.device}: {report.device_name} ({report.adapter} adapter, {memory})",
            f"torch {report.torch_version}; {len(report.ops)} aten ops; {kernels}"]


def _native_detail(op) -> str:
    detail = f"{', '.join(op.hal_ops)}: {' '.join(op.dtypes)}"
    return detail + (f" (other dtypes: {op.otherwise})" if op.otherwise else "")


def render_text(report: CoverageReport) -> str:
    lines = _header_lines(report) + [""]
    counts = report.counts()
    for category, description in CATEGORIES.items():
        lines.append(f"  {category:<13}{counts[category]:>5}  {description}")
    for category in CATEGORIES:
        ops = [op for op in report.ops if op.category == category]
        if not ops:
            continue
        lines += ["", f"{category} ({len(ops)}):"]
        if category == "native":
            width = max(len(op.name) for op in ops) + 2
            lines += [f"  {op.name:<{width}}{_native_detail(op)}" for op in ops]
        else:
            lines += textwrap.wrap(", ".join(op.name for op in ops), _WIDTH, initial_indent="  ",
                                   subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(lines) + "\n"


def render_markdown(report: CoverageReport) -> str:
    title, detail = _header_lines(report)
    lines = [f"## {title}", "", detail, "", "| category | ops | meaning |", "| --- | ---: | --- |"]
    counts = report.counts()
    lines += [f"| {c} | {counts[c]} | {d} |" for c, d in CATEGORIES.items()]
    for category in CATEGORIES:
        ops = [op for op in report.ops if op.category == category]
        if not ops:
            continue
        lines += ["", f"### {category} ({len(ops)})", ""]
        if category == "native":
            lines += ["| op | adapter ops | dtypes | other dtypes |", "| --- | --- | --- | --- |"]
            lines += [f"| `{op.name}` | {', '.join(op.hal_ops)} | {' '.join(op.dtypes)} | {op.otherwise or ''} |"
                      for op in ops]
        else:
            lines.append(", ".join(f"`{op.name}`" for op in ops))
    return "\n".join(lines) + "\n"


def render_json(report: CoverageReport) -> str:
    data = dataclasses.asdict(report)
    data["categories"] = {c: {"count": n, "meaning": CATEGORIES[c]} for c, n in report.counts().items()}
    return json.dumps(data, indent=1) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
