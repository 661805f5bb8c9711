"""The evaluation's table, and its JSON report."""

from __future__ import annotations

import json
from pathlib import Path

from .conversations import ABILITIES

ANSWERABLE = tuple(ability for ability in ABILITIES if ability != "abstention")


def _shown(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def table(results: dict) -> str:
    """One row per setting: recall@k overall, hit@5, MRR, recall@5 per ability, abstention (and how far
    apart the first scores of questions with and without an answer lie), latency."""
    head = ["setting", "layout", "R@1", "R@5", "R@10", "hit@5", "all@5", "MRR"]
    head += [f"R@5 {ability[:6]}" for ability in ANSWERABLE]
    head += ["newest", "abstain", "answer", "apart", "p50 ms", "p99 ms", "leaks"]
    rows = [head]
    for name, found in results.items():
        overall = found["by_ability"].get("overall", {})
        row = [name, found["layout"]]
        row += [
            _shown(overall.get(metric))
            for metric in ("recall@1", "recall@5", "recall@10", "hit@5", "all@5", "mrr")
        ]
        row += [_shown(found["by_ability"].get(ability, {}).get("recall@5")) for ability in ANSWERABLE]
        row += [_shown(found["newest_first"]), _shown(found["abstained"]), _shown(found["answered"])]
        row += [_shown(found.get("separation"))]
        row += [f"{found['latency_ms']['p50']:.1f}", f"{found['latency_ms']['p99']:.1f}", str(found["leaks"])]
        rows.append(row)
    widths = [max(len(row[column]) for row in rows) for column in range(len(head))]
    return "\n".join(
        "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows
    )


def ingest_lines(ingests: list[dict]) -> str:
    lines = []
    for one in ingests:
        line = f"{one['layout']}: {one['written']:,} written in {one['write_seconds']:.1f} s ({one['written_per_second']}/s)"
        if one["embedded"]:
            line += f", {one['embedded']:,} embedded in {one['embed_seconds']:.1f} s ({one['embedded_per_second']}/s)"
            if one.get("from_cache"):
                line += (
                    f", of which {one['from_cache']:,} from the cache: "
                    f"{one['model_per_second']}/s made by the model"
                )
        lines.append(line)
    return "\n".join(lines)


def write_json(path: str, report: dict) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report, indent=1, default=str) + "\n")
