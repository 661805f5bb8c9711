"""The long-memory recall evaluation (bench/recall): its generator, its scorer and its command.

The generator must give the same data for a seed, questions whose evidence is where it says and words
none of its evidence has; the scorer must count hand-made rankings right; the command must run end to
end on the tiny size against the tests' FalkorDB.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bench.recall import run
from bench.recall.conversations import ABILITIES, SIZES, Question, generate, offset_words
from bench.recall.scoring import (
    all_at,
    answers,
    hit_at,
    newest_first,
    percentile,
    ranked_sessions,
    recall_at,
    reciprocal_rank,
    score,
    separation,
    summary,
)
from bench.recall.words import shared, stems


@pytest.fixture(scope="module")
def default():
    return generate(7, "default")


def test_the_same_seed_gives_the_same_conversations_and_another_seed_others():
    first, again, other = generate(3, "tiny"), generate(3, "tiny"), generate(4, "tiny")
    assert first.sessions == again.sessions
    assert first.questions == again.questions
    assert first.users == again.users
    assert [q.text for q in first.questions] != [q.text for q in other.questions] or (
        first.sessions != other.sessions
    )


def test_an_unknown_size_is_refused():
    with pytest.raises(ValueError, match="size is one of"):
        generate(1, "huge")


def test_the_default_size_has_500_questions_over_5000_turns_and_sessions_of_thousands_of_words(default):
    assert len(default.questions) >= 500
    assert default.turn_count() >= 5_000
    assert {q.ability for q in default.questions} == set(ABILITIES)
    assert max(session.words() for session in default.sessions.values()) >= 3_000
    # a fact said deep in a long session: after its 2,000th word
    deep = 0
    for question in default.questions:
        for evidence in question.evidence:
            turns = default.sessions[evidence.session].turns
            deep += sum(len(turn.text.split()) for turn in turns[: evidence.turn]) >= 2_000
    assert deep >= 10


@pytest.mark.parametrize("size", ["tiny", "default"])
def test_every_evidence_session_exists_belongs_to_the_user_and_holds_the_answer(size, default):
    data = default if size == "default" else generate(7, size)
    for question in data.questions:
        for evidence in question.evidence + question.older:
            session = data.sessions[evidence.session]
            assert session.user == question.user
            turn = session.turns[evidence.turn]
            assert turn.role == "user"
            assert evidence.holds in turn.text
            assert turn.at < question.asked_at
        held = [evidence.holds for evidence in question.evidence]
        assert all(part in held for part in question.answer), question
        if question.ability == "abstention":
            assert question.evidence == () and question.answer == ()
        else:
            assert question.evidence and question.answer
        if question.ability == "multi":
            assert len({evidence.session for evidence in question.evidence}) >= 2
        if question.ability == "update":
            newer = data.sessions[question.evidence[0].session]
            (older,) = question.older
            assert data.sessions[older.session].began + timedelta(days=14) <= newer.began
            assert older.holds != question.answer[0]


def test_a_temporal_question_names_its_event_by_its_distance_from_the_anchor_or_the_asking(default):
    asked = [q for q in default.questions if q.ability == "temporal"]
    assert len(asked) >= 90
    for question in asked:
        event = default.sessions[question.evidence[0].session].began
        if len(question.evidence) == 2:
            anchor = default.sessions[question.evidence[1].session].began
            side = "before" if event < anchor else "after"
            assert f"about {offset_words(abs((event.date() - anchor.date()).days))} {side} " in question.text
        else:
            assert question.text.endswith(
                f"about {offset_words((question.asked_at.date() - event.date()).days)} ago?"
            )


def test_questions_share_no_key_word_with_their_evidence(default):
    for data in (default, generate(11, "tiny"), generate(12, "small")):
        for question in data.questions:
            for evidence in question.evidence + question.older:
                said = data.sessions[evidence.session].turns[evidence.turn].text
                assert shared(question.text, said) == set(), (question.text, said)


def test_the_key_word_check_sees_a_shared_stem_and_passes_function_words():
    assert shared("When was my trip?", "The trips were long") == {"trip"}
    assert shared("Which month?", "Paid monthly") == {"month"}
    assert shared("What did I travel for?", "Travelling again") == {"trave"}
    assert shared("What is it that I did?", "It is what I did") == set()
    assert stems("The Cat's Pyjamas") == {"cat", "pyjam"}


def test_a_distance_in_time_is_said_in_days_weeks_or_months():
    assert offset_words(5) == "five days"
    assert offset_words(15) == "two weeks"
    assert offset_words(8) == "eight days"
    assert offset_words(7 * 5) == "five weeks"
    assert offset_words(92) == "three months"


def test_the_scorer_counts_hand_made_rankings():
    hits = [("a", 0.9), ("b", 0.8), ("a", 0.7), ("c", 0.6), ("d", 0.5), ("e", 0.4), ("f", 0.3)]
    ranking = ranked_sessions(hits)
    assert ranking == ["a", "b", "c", "d", "e", "f"]
    assert recall_at(ranking, {"b", "e"}, 1) == 0.0
    assert recall_at(ranking, {"b", "e"}, 2) == 0.5
    assert recall_at(ranking, {"b", "e"}, 5) == 1.0
    assert recall_at(ranking, {"b", "z"}, 10) == 0.5
    assert hit_at(ranking, {"c", "z"}, 2) == 0.0 and hit_at(ranking, {"c", "z"}, 3) == 1.0
    assert all_at(ranking, {"a", "d"}, 3) == 0.0 and all_at(ranking, {"a", "d"}, 4) == 1.0
    assert reciprocal_rank(ranking, {"c", "e"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranking, {"z"}) == 0.0
    assert newest_first(ranking, {"b"}, {"c"}) and not newest_first(ranking, {"c"}, {"b"})
    assert newest_first(ranking, {"b"}, {"z"}) and not newest_first(ranking, {"z"}, {"b"})
    assert not newest_first(ranking, {"y"}, {"z"})  # neither found: not an order
    assert answers(hits, 0.85) and not answers(hits, 0.9) and not answers([], 0.0)
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert percentile([float(n) for n in range(1, 101)], 0.99) == 99.0


def _question(ability, sessions, older=()):
    from bench.recall.conversations import Evidence

    return Question(
        f"q-{ability}",
        "u",
        ability,
        "?",
        None,
        ("x",) if sessions else (),
        tuple(Evidence(s, 0, "x") for s in sessions),
        tuple(Evidence(s, 0, "x") for s in older),
    )


def test_the_summary_means_per_ability_abstention_and_latency():
    scored = [
        score(_question("single", ["a"]), [("b", 0.9), ("a", 0.8)], 0.010, 0.5),  # MRR 1/2, R@1 0
        score(_question("multi", ["a", "c"]), [("a", 0.9), ("b", 0.8), ("c", 0.1)], 0.020, 0.5),
        score(_question("update", ["b"], older=["a"]), [("a", 0.4), ("b", 0.3)], 0.030, 0.5),
        score(_question("abstention", []), [("a", 0.4)], 0.040, 0.5),  # abstains
        score(_question("abstention", []), [("a", 0.6)], 0.050, 0.5),  # answers
    ]
    found = summary(scored, ABILITIES)
    overall = found["by_ability"]["overall"]
    assert overall["questions"] == 3
    assert overall["recall@1"] == pytest.approx((0 + 0.5 + 0) / 3, abs=1e-4)
    assert overall["recall@5"] == 1.0
    assert overall["mrr"] == pytest.approx((0.5 + 1 + 0.5) / 3, abs=1e-4)
    assert found["by_ability"]["multi"]["all@1"] == 0.0 and found["by_ability"]["multi"]["all@5"] == 1.0
    assert found["newest_first"] == 0.0
    assert found["abstained"] == 0.5
    assert found["answered"] == pytest.approx(2 / 3, abs=1e-4)
    # first scores 0.9, 0.9, 0.4 against 0.4, 0.6: above in 4 pairs, tied in 1, below in 1
    assert found["separation"] == pytest.approx(4.5 / 6, abs=1e-4)
    assert found["latency_ms"]["p50"] == 30.0 and found["latency_ms"]["p99"] == 50.0
    assert "abstention" not in found["by_ability"]


def test_separation_is_a_half_when_the_first_scores_say_nothing_and_one_when_a_threshold_splits_them():
    assert separation([0.9, 0.8], [0.1, None]) == 1.0
    assert separation([0.5, 0.5], [0.5, 0.5]) == 0.5
    assert separation([None], [0.2]) == 0.0  # no hit at all is below any score
    assert separation([], [0.2]) is None and separation([0.2], []) is None


def test_the_command_runs_end_to_end_on_the_tiny_size(tmp_path, capsys):
    report_path = tmp_path / "recall.json"
    assert (
        run.main(
            [
                "--size",
                "tiny",
                "--settings",
                "recall,words,messages,messages_meaning",
                "--diagnose",
                "--json",
                str(report_path),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    rows = {line.split()[0] for line in printed.splitlines() if line.split()}
    for name in ("recall", "words", "messages", "messages_meaning"):
        assert name in rows
    report = json.loads(report_path.read_text())
    data = generate(7, "tiny")
    assert report["questions"] == len(data.questions) and report["turns"] == data.turn_count()
    assert [one["layout"] for one in report["ingest"]] == ["turns", "messages"]
    assert report["ingest"][0]["embedded"] == data.turn_count()
    assert report["ingest"][1]["embedded"] == data.turn_count()  # the messages, for messages_meaning
    for name, found in report["settings"].items():
        assert found["leaks"] == 0, name
        overall = found["by_ability"]["overall"]
        assert overall["questions"] == sum(1 for q in data.questions if q.evidence)
        assert (
            0 < overall["recall@10"] <= 1
            and overall["recall@1"] <= overall["recall@5"] <= overall["recall@10"]
        )
        assert found["latency_ms"]["p50"] > 0
        users = {q.id: q.user for q in data.questions}
        for one in found["questions"]:
            assert all(data.sessions[session].user == users[one["question"]] for session in one["ranking"])
    assert report["settings"]["recall"]["abstained"] is not None
    assert report["settings"]["words"]["abstained"] is None  # no threshold: not judged
    _check_diagnosis(report, data, printed)


def _check_diagnosis(report: dict, data, printed: str) -> None:
    """--diagnose: no order of the candidates recall() fuses beats their ceiling, question by question."""
    diagnosed = {one["question"]: one for one in report["diagnosis"]["questions"]}
    assert set(diagnosed) == {q.id for q in data.questions if q.evidence}
    recalled = {one["question"]: one["scores"] for one in report["settings"]["recall"]["questions"]}
    for question, found in diagnosed.items():
        assert recalled[question]["recall@5"] <= found["ceiling"]["1000"] <= 1
        assert found["ceiling"]["5"] <= found["ceiling"]["10"] <= found["ceiling"]["1000"]
        for shares in found["found"].values():
            assert shares["5"] <= shares["10"] <= shares["50"] <= shares["100"] <= 1
        assert all(rank >= 1 for rank in found["cosine_ranks"])
        assert len(found["cosine_ranks"]) == len(next(q for q in data.questions if q.id == question).evidence)
    summary = report["diagnosis"]["summary"]
    assert summary["overall"]["questions"] == len(diagnosed)
    assert "time" not in summary["single"]["found"] or summary["single"]["found"]["time"]["questions"] == 0
    assert "CEILING" in printed and "cosine rank" in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--settings", "recall,nothing"], "unknown setting nothing"),
        (["--settings", ","], "unknown setting (none)"),
        (["--depth", "5"], "--depth is from 10 to 1000"),
        (["--threshold", "nothing=0.5"], "no setting 'nothing'"),
        (["--threshold", "recall=high"], "'high' is not a number"),
        (["--size", "huge"], "invalid choice"),
    ],
)
def test_the_command_refuses_bad_options_before_anything_runs(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        run.main(argv)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_the_command_lists_its_settings_and_sizes(capsys):
    assert run.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("recall", "meaning", "messages", *SIZES))


def test_the_vector_cache_answers_what_it_holds_and_asks_the_model_the_rest(tmp_path):
    from bench.recall.vector_cache import CachedEmbedder

    asked: list[list[str]] = []

    def model(texts):
        asked.append(list(texts))
        return [[float(len(text)), 1.0] for text in texts]

    first = CachedEmbedder(model, "m", str(tmp_path))
    assert first(["ab", "abc"]) == [[2.0, 1.0], [3.0, 1.0]]
    assert first(["abc"]) == [[3.0, 1.0]] and first.taken == 1
    first.save()
    again = CachedEmbedder(model, "m", str(tmp_path))
    assert again(["abc", "abcd", "ab"]) == [[3.0, 1.0], [4.0, 1.0], [2.0, 1.0]]
    assert asked == [["ab", "abc"], ["abcd"]] and again.taken == 2
    other = CachedEmbedder(model, "another model", str(tmp_path))
    other(["ab"])
    assert asked[-1] == ["ab"] and other.taken == 0  # another model's vectors are not these


def test_the_command_asks_only_the_abilities_and_the_number_of_questions_chosen(tmp_path, capsys):
    report_path = tmp_path / "recall.json"
    argv = ["--size", "tiny", "--settings", "words", "--only", "update", "--only", "single"]
    assert run.main([*argv, "--questions", "5", "--json", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert report["questions"] == 5 and report["model"] is None  # words only: nothing embedded
    assert report["ingest"][0]["embedded"] == 0
    found = report["settings"]["words"]
    assert {one["ability"] for one in found["questions"]} <= {"update", "single"}
    assert set(found["by_ability"]) <= {"overall", "update", "single"}
    assert found["abstained"] is None and found["answered"] is None
    assert "5 asked" in capsys.readouterr().out
