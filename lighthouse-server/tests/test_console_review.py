"""Review through the console over plain HTTP: several candidates decided at once, a State that does not
exist, and the record of each decision on the pages and in history()."""

from __future__ import annotations

from console_world import seeded, signed_in, trust_of


def _both(world, csrf: str, decision: str, why: str = "") -> dict:
    return {
        "csrf": csrf,
        "act": f"{decision}:picked",
        "pick": ["0", "1"],
        "item-0": f'["Device", "cand-a", "{world.candidates["cand-a"]}"]',
        "item-1": f'["Device", "cand-b", "{world.candidates["cand-b"]}"]',
        "why": why,
    }


def test_several_candidates_are_confirmed_at_once_and_the_record_is_shown(lighthouse):
    world = seeded(lighthouse)
    reviewer = lighthouse.key(world.tenant, agent="rita", scopes=["read", "review"])
    client, csrf = signed_in(lighthouse, reviewer)
    filtered = {**_both(world, csrf, "confirm", "checked on site"), "by": "model:fake", "since": "2026-02-01"}
    answer = client.post("/console/review", data=filtered)
    # Back to the queue as it was filtered.
    assert (
        answer.status_code == 303
        and answer.headers["location"] == "/console/review?by=model%3Afake&since=2026-02-01"
    )
    for key in ("cand-a", "cand-b"):
        ((trust, review),) = trust_of(lighthouse, world.admin, key)
        assert trust == "confirmed" and review["by"] == "rita" and review["why"] == "checked on site"
    page = client.get("/console/review").text
    assert 'id="no-candidates"' in page
    decided = page[page.index('id="decisions"') :]
    assert decided.count('class="decision decision-confirm"') == 2 and "checked on site" in decided
    assert "confirmed by rita" in decided
    entity = client.get("/console/entity", params={"kind": "Device", "key": "cand-a"}).text
    assert "confirmed by rita" in entity and "checked on site" in entity


def test_several_rejected_at_once_need_one_reason_and_stay_in_history(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    assert client.post("/console/review", data=_both(world, csrf, "reject")).status_code == 400
    assert trust_of(lighthouse, world.admin, "cand-a") == [("candidate", None)]
    assert (
        client.post("/console/review", data=_both(world, csrf, "reject", "the model misread")).status_code
        == 303
    )
    for key in ("cand-a", "cand-b"):
        ((trust, review),) = trust_of(lighthouse, world.admin, key)
        assert trust == "rejected" and review["why"] == "the model misread"
    entity = client.get("/console/entity", params={"kind": "Device", "key": "cand-b"}).text
    assert 'class="state-row trust-rejected"' in entity and "trust-rejected" in entity[entity.index("<svg") :]


def test_a_state_that_does_not_exist_is_said_unknown_and_nothing_changes(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    made_up = {
        "csrf": csrf,
        "act": "confirm:0",
        "item-0": '["Device", "cand-a", "2020-01-01T00:00:00+00:00"]',
    }
    assert client.post("/console/review", data=made_up).status_code == 303
    decided = client.get("/console/review").text
    assert '<td class="status">unknown' in decided
    assert trust_of(lighthouse, world.admin, "cand-a") == [("candidate", None)]
    half_bad = {
        **made_up,
        "act": "confirm:picked",
        "pick": ["0", "1"],
        "item-1": '["Device", "cand-b", "soon"]',
    }
    half_bad["item-0"] = f'["Device", "cand-a", "{world.candidates["cand-a"]}"]'
    assert client.post("/console/review", data=half_bad).status_code == 400
    assert trust_of(lighthouse, world.admin, "cand-a") == [("candidate", None)]  # not half done
    not_a_kind = {
        "csrf": csrf,
        "act": "confirm:0",
        "item-0": '["Boat", "cand-a", "2026-02-01T00:00:00+00:00"]',
    }
    assert client.post("/console/review", data=not_a_kind).status_code == 404


def test_a_batch_with_one_bad_item_is_refused_before_anything_is_written(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    good = f'["Device", "cand-a", "{world.candidates["cand-a"]}"]'
    for bad, code in (
        (f'["Device", "", "{world.candidates["cand-b"]}"]', "invalid_argument"),  # no key is ""
        (f'["Device", " cand-b", "{world.candidates["cand-b"]}"]', "invalid_argument"),
        (f'["Device", true, "{world.candidates["cand-b"]}"]', "invalid_argument"),
        ('["Device", "cand-b", "1066-10-14T00:00:00Z"]', "invalid_argument"),  # before what is stored
        (f'["Boat", "cand-b", "{world.candidates["cand-b"]}"]', "not_found"),
    ):
        for decision, why in (("confirm", ""), ("reject", "misread")):
            form = {
                "csrf": csrf,
                "act": f"{decision}:picked",
                "pick": ["0", "1"],
                "item-0": good,
                "item-1": bad,
                "why": why,
            }
            answer = client.post("/console/review", data=form)
            assert answer.status_code in (400, 404) and f'data-code="{code}"' in answer.text, bad
    too_long = {
        "csrf": csrf,
        "act": "confirm:picked",
        "pick": ["0", "1"],
        "item-0": good,
        "item-1": f'["Device", "cand-b", "{world.candidates["cand-b"]}"]',
        "why-1": "x" * 2_001,
    }
    assert client.post("/console/review", data=too_long).status_code == 400
    assert trust_of(lighthouse, world.admin, "cand-a") == [("candidate", None)]
    assert trust_of(lighthouse, world.admin, "cand-b") == [("candidate", None)]
    assert lighthouse.result("failures", {"reason": "unknown"}, world.admin) == []  # no State was asked for
    assert 'id="decisions"' not in client.get("/console/review").text  # no decision was made


def test_a_decision_runs_through_the_operation_and_its_record_is_the_states(lighthouse):
    world = seeded(lighthouse)
    reviewer = lighthouse.key(world.tenant, agent="vera", scopes=["read", "review"])
    client, csrf = signed_in(lighthouse, reviewer)
    form = {
        "csrf": csrf,
        "act": "reject:0",
        "item-0": '["Device", "cand-b", "2026-02-02T00:00:00Z"]',  # the same time, written with Z
        "why-0": "no attic",
    }
    assert client.post("/console/review", data=form).status_code == 303
    ((trust, review),) = trust_of(lighthouse, world.admin, "cand-b")
    assert trust == "rejected" and review["by"] == "vera"
    decided = client.get("/console/review").text
    decided = decided[decided.index('id="decisions"') :]
    assert '<td class="status">rejected' in decided and "rejected by vera" in decided
