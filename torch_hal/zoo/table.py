"""The zoo's report as text: a table per family, a row per model, then the fallback ops, failures and skips."""
import textwrap
from typing import Dict, List

COLUMNS = ("model", "params", "depth", "ops", "native", "fallback", "loss diff", "grad diff", "tolerance",
           "generate", "step ratio", "result", "notes")

LEGEND = ("ops: aten calls on the device in the first step; native: those the adapter's own kernels ran (the rest ran "
          "ATen's CPU kernels in place, the device's runtime, or the fallback); fallback: calls through the CPU "
          "fallback over generate() and all steps (torch.hal.fallback_stats()); loss/grad diff: the largest relative "
          "difference of a step's loss / gradient norm to the reference's, passing up to the tolerance (16 x "
          "eps(dtype) x depth); generate: greedy tokens equal to the CPU's; step ratio: the device's step time over "
          "the reference's (median of the steps after the first).")


def _count(n) -> str:
    if n is None:
        return "-"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _exp(x) -> str:
    return "-" if x is None else f"{x:.1e}"


def row(result: dict) -> List[str]:
    ops = result.get("ops") or {}
    worst = lambda key: max(result[key].values()) if result.get(key) else None  # noqa: E731
    ratio = result.get("step_ratio")
    return [result["name"], _count(result.get("params")), str(result.get("depth", "-")),
            str(ops.get("total", "-")), str(ops.get("native", 0)) if ops else "-",
            str(sum(result.get("fallback", {}).values())) if "fallback" in result else "-",
            _exp(worst("loss_diff")), _exp(worst("grad_diff")), _exp(result.get("tolerance")),
            result.get("generate") or "", f"{ratio:.2f}" if ratio else "-", result["status"],
            "; ".join(result.get("notes", []))]


def _format(rows: List[List[str]]) -> List[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


def render(results: List[dict], header: str, skipped_families: Dict[str, str]) -> str:
    lines = [header, ""] + textwrap.wrap(LEGEND, 116)
    for family in dict.fromkeys(r["family"] for r in results):
        members = [r for r in results if r["family"] == family]
        against = next((r["ratio_against"] for r in members if r.get("ratio_against")), "cpu")
        columns = [c if c != "step ratio" else f"step /{against}" for c in COLUMNS]
        title = f"{family} ({len(members)} model{'s' if len(members) != 1 else ''})"
        lines += ["", title] + _format([columns] + [row(r) for r in members])
    for family, why in skipped_families.items():
        lines += ["", f"{family}: skipped: {why}"]
    fallbacks = [r for r in results if r.get("fallback")]
    if fallbacks:
        lines += ["", "CPU fallback ops:"]
        lines += [f"  {r['name']}: " + ", ".join(f"{op} ({n})" for op, n in r["fallback"].items()) for r in fallbacks]
    for status, title in (("fail", "Failures"), ("skip", "Skipped")):
        chosen = [r for r in results if r["status"] == status]
        if chosen:
            lines += ["", f"{title}:"] + [f"  {r['family']}/{r['name']}: {'; '.join(r['reasons'])}" for r in chosen]
    counts = {s: sum(r["status"] == s for r in results) for s in ("pass", "fail", "skip")}
    lines += ["", f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
              + (f"; families skipped: {', '.join(skipped_families)}" if skipped_families else "")]
    return "\n".join(lines) + "\n"
