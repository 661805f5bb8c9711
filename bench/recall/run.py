"""The long-memory recall evaluation: `uv run python -m bench.recall` from the repository root.

Generates the conversations of a seed and size (conversations.py), writes them into throwaway graphs on
the embedded FalkorDB (or the one FALKORDB_HOST/PORT or FALKORDB_URL name), embeds the notes with the
local embedder the service ships, asks every question under each chosen setting (settings.py) and prints
one row per setting: session recall@1/5/10, hit@5, all@5, MRR, recall@5 per ability, the share of
updates whose newest statement ranks first, abstention, latency p50/p99 and leaks (hits from another
user's sessions); then the ingest rates. --json writes the figures, per question too. The graphs are
deleted at the end, also when it fails. Exit code 1 with WRONG WORK when a write was not what it claims.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid

from lighthouse_server import database

from . import ingest
from .conversations import ABILITIES, SIZES, generate
from .diagnosis import diagnose, diagnosis_table, misses, misses_table
from .report import ingest_lines, table, write_json
from .scoring import KS, score, summary
from .settings import DEFAULT_SETTINGS, SETTINGS, Asking
from .vector_cache import CachedEmbedder


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--size", choices=sorted(SIZES), default="default", help="how much is generated (default: default)"
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of the conversations (default 7)")
    parser.add_argument(
        "--settings",
        default=",".join(DEFAULT_SETTINGS),
        help=f"comma-separated settings to compare, of: {', '.join(SETTINGS)} (default: {','.join(DEFAULT_SETTINGS)})",
    )
    parser.add_argument("--depth", type=int, default=50, help="notes or messages each ask reads (default 50)")
    parser.add_argument(
        "--only", choices=ABILITIES, action="append", help="ask only questions of this ability (repeatable)"
    )
    parser.add_argument(
        "--questions", type=int, default=None, help="ask at most this many questions (the first of each user)"
    )
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="SETTING=SCORE",
        help="the abstention threshold of a setting",
    )
    parser.add_argument(
        "--threads", type=int, default=None, help="CPU threads of the embedder (default: all cores)"
    )
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON")
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="keep the notes' vectors here between runs (the embedding rate is then not the model's)",
    )
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="also tell where the evidence ranks under each ranking alone, the ceiling of any fusion of "
        "them, and the evidence's cosine rank (diagnosis.py)",
    )
    parser.add_argument("--list", action="store_true", help="list the settings and sizes, and stop")
    args = parser.parse_args(argv)
    args.chosen = [name.strip() for name in args.settings.split(",") if name.strip()]
    unknown = [name for name in args.chosen if name not in SETTINGS]
    if unknown or not args.chosen:
        parser.error(f"unknown setting {', '.join(unknown) or '(none)'}: choose from {', '.join(SETTINGS)}")
    if args.depth < 10 or args.depth > 1000:
        parser.error("--depth is from 10 to 1000")
    args.thresholds = {}
    for given in args.threshold:
        name, _, value = given.partition("=")
        if name not in SETTINGS:
            parser.error(f"--threshold {given}: no setting {name!r}")
        try:
            args.thresholds[name] = float(value)
        except ValueError:
            parser.error(f"--threshold {given}: {value!r} is not a number")
    return args


def listing() -> str:
    lines = ["settings:"]
    lines += [f"  {s.name:18} {s.layout:9} {s.about}" for s in SETTINGS.values()]
    lines.append("sizes:")
    for name, size in SIZES.items():
        asked = sum(size.questions.values()) * size.users
        lines.append(f"  {name:8} {size.users} users x {size.sessions} sessions, about {asked} questions")
    return "\n".join(lines)


def _embedder(threads: int | None):
    from lighthouse_server.embedders import local_embedder  # the optional extra: loaded only when needed

    embedder = local_embedder(threads)
    embedder[0](["warm up"])  # the model loads on the first call: not part of the ingest rate
    return embedder


def _asked(data, args) -> list:
    chosen = [q for q in data.questions if args.only is None or q.ability in args.only]
    if args.questions is not None:
        chosen = chosen[: args.questions]
    return chosen


def evaluate(client, args) -> dict:
    """Generates, writes, asks and scores: the report."""
    began, load = time.perf_counter(), os.getloadavg()[0]
    data = generate(args.seed, args.size)
    settings = [SETTINGS[name] for name in args.chosen]
    embedded = any(s.needs_embedder for s in settings) or args.diagnose
    embedder = _embedder(args.threads) if embedded else None
    cached = CachedEmbedder(embedder[0], embedder[1], args.cache) if embedder and args.cache else None
    writing = (cached, embedder[1], embedder[2]) if cached else embedder
    memory = ingest.Memory()
    run_id = uuid.uuid4().hex[:8]
    questions = _asked(data, args)
    print(
        f"{len(data.users)} users, {len(data.sessions)} sessions, {data.turn_count():,} turns, "
        f"{len(data.questions)} questions ({len(questions)} asked); seed {args.seed}, size {args.size}",
        flush=True,
    )
    results: dict = {}
    diagnosis = None
    try:
        for layout in ingest.LAYOUTS:
            if any(s.layout == layout for s in settings) or (args.diagnose and layout == "turns"):
                made = (
                    ingest.write_messages(
                        memory,
                        client,
                        run_id,
                        data,
                        writing if any(s.layout == layout and s.needs_embedder for s in settings) else None,
                    )
                    if layout == "messages"
                    else ingest.write_notes(memory, client, run_id, data, layout, writing)
                )
                print(ingest_lines([made.figures()]), flush=True)
        if cached is not None:
            cached.save()
        asking = Asking(memory, embedder, args.depth)
        for setting in settings:
            threshold = args.thresholds.get(setting.name, setting.threshold)
            scored, leaks = [], 0
            for question in questions:
                graph = memory.graph(setting.layout, question.user)
                started = time.perf_counter()
                hits = setting.ask(asking, question, graph)
                seconds = time.perf_counter() - started
                leaks += sum(1 for session, _ in hits if data.sessions[session].user != question.user)
                scored.append(score(question, hits, seconds, threshold))
            results[setting.name] = {
                "layout": setting.layout,
                "about": setting.about,
                "threshold": threshold,
                "leaks": leaks,
                **summary(scored, ABILITIES),
                "questions": [vars(one) for one in scored],
            }
            print(f"{setting.name}: asked {len(scored)} questions", flush=True)
        if args.diagnose:
            diagnosis = diagnose(memory, questions, embedder, args.depth)
            asked = results.get("recall")
            diagnosis["misses"] = (
                misses(
                    diagnosis["questions"], {one["question"]: one["ranking"] for one in asked["questions"]}
                )
                if asked
                else None
            )
    finally:
        ingest.delete(memory)
    return {
        "command": " ".join(sys.argv),
        "seed": args.seed,
        "size": args.size,
        "users": len(data.users),
        "sessions": len(data.sessions),
        "turns": data.turn_count(),
        "questions": len(questions),
        "longest_session_words": max(session.words() for session in data.sessions.values()),
        "ks": list(KS),
        "depth": args.depth,
        "model": embedder[1] if embedder else None,
        "ingest": [one.figures() for one in memory.ingests],
        "settings": results,
        "diagnosis": diagnosis,
        "seconds": round(time.perf_counter() - began, 1),
        # the machine's load (1-minute average) at the start and the end: latency and rates are noisy
        "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    if args.list:
        print(listing())
        return 0
    server = database.connect_or_start()
    try:
        report = evaluate(server.client(), args)
    except ingest.WrongWork as error:
        print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
        return 1
    finally:
        server.stop()
    print()
    print(table(report["settings"]))
    if report["diagnosis"] is not None:
        recalled = report["settings"].get("recall", {}).get("by_ability", {})
        print()
        print(
            diagnosis_table(
                report["diagnosis"]["summary"], {g: f.get("recall@5") for g, f in recalled.items()}
            )
        )
        if report["diagnosis"]["misses"] is not None:
            print()
            print("evidence sessions `recall` left out of its first 5, by cause:")
            print(misses_table(report["diagnosis"]["misses"]))
    print()
    print(ingest_lines(report["ingest"]))
    print(f"{report['seconds']} s in all; load average {report['load_average']} on {report['cpus']} CPUs")
    if args.json:
        write_json(args.json, report)
        print(f"written: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
