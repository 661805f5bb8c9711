"""The console's refusals over plain HTTP against the real `lighthouse serve`: no session, a revoked key,
another tenant's key, a key without the scope, a missing or wrong CSRF token. Each is refused, and the
HTTP API shows that nothing changed."""

from __future__ import annotations

import time

import httpx
from console_world import USER, review_form, same_site, seeded, signed_in, trust_of
from lighthouse_server import keys

PENDING = [("candidate", None)]


def _refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text[:2000]
    assert f'data-code="{code}"' in answer.text


def test_without_a_session_pages_send_to_sign_in_and_actions_are_401(lighthouse):
    world = seeded(lighthouse)
    plain = httpx.Client(base_url=lighthouse.url)
    for path in (
        "/console/",
        "/console/entity?kind=Device&key=pump-7",
        "/console/review",
        "/console/search?q=pump",
    ):
        answer = plain.get(path)
        assert answer.status_code == 303 and answer.headers["location"] == "/console/sign-in"
        assert "pump" not in answer.text
    _refused(
        plain.post("/console/review", data=review_form(world, "confirm", "cand-a", "x")), 401, "unauthorized"
    )
    plain.cookies.set("lh_console", "made-up-token", path="/console")
    _refused(
        plain.post("/console/review", data=review_form(world, "confirm", "cand-a", "x")), 401, "unauthorized"
    )
    assert plain.get("/console/").status_code == 303
    assert trust_of(lighthouse, world.admin, "cand-a") == PENDING


def test_sign_in_refuses_bad_keys_and_sets_a_strict_cookie_without_the_key(lighthouse):
    world = seeded(lighthouse)
    plain = httpx.Client(base_url=lighthouse.url, headers=same_site(lighthouse))
    for given, status in (("", 401), ("lh_000000000000_not-a-key", 401), ("x" * 5000, 401)):
        answer = plain.post("/console/sign-in", data={"key": given})
        assert answer.status_code == status and "set-cookie" not in answer.headers
    writer = lighthouse.key(world.tenant, scopes=["write"])
    assert plain.post("/console/sign-in", data={"key": writer}).status_code == 403
    revoked = lighthouse.key(world.tenant)
    keys.revoke(lighthouse.db(), revoked.split("_")[1])
    time.sleep(keys.REMEMBERED_FOR + 0.5)  # the server trusts a checked key this long
    assert plain.post("/console/sign-in", data={"key": revoked}).status_code == 401
    answer = plain.post("/console/sign-in", data={"key": world.admin})
    cookie = answer.headers["set-cookie"]
    assert answer.status_code == 303
    assert {"HttpOnly", "SameSite=Strict", "Path=/console"} <= {part.strip() for part in cookie.split(";")}
    # The secret is all after the second "_": it may hold "_" itself (URL-safe base64), and a piece of
    # it two characters long was found in a random cookie by chance.
    secret = world.admin.split("_", 2)[2]
    assert len(secret) >= 20 and world.admin not in cookie and secret not in cookie
    page = plain.get("/console/")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    # Scripts only from the console's own file, never inline or evaluated.
    assert "default-src 'none'" in policy and "script-src 'self';" in policy and "unsafe" not in policy


def test_a_revoked_key_ends_its_session_at_the_next_request(lighthouse):
    world = seeded(lighthouse)
    reviewer = lighthouse.key(world.tenant, agent="reviewer", scopes=["read", "review"])
    client, csrf = signed_in(lighthouse, reviewer)
    assert client.get("/console/review").status_code == 200
    keys.revoke(lighthouse.db(), reviewer.split("_")[1])
    time.sleep(keys.REMEMBERED_FOR + 0.5)
    _refused(
        client.post("/console/review", data=review_form(world, "confirm", "cand-a", csrf)),
        401,
        "unauthorized",
    )
    assert client.get("/console/review").status_code == 303
    assert trust_of(lighthouse, world.admin, "cand-a") == PENDING


def test_a_key_of_another_tenant_sees_and_changes_nothing_of_this_one(lighthouse):
    world = seeded(lighthouse)
    _other, other_admin = lighthouse.tenant("other")
    client, csrf = signed_in(lighthouse, other_admin)
    _refused(client.get("/console/entity?kind=Device&key=pump-7"), 404, "not_found")
    _refused(client.get(f"/console/entry?id={world.note}"), 404, "not_found")
    assert "pump-7" not in client.get("/console/search?q=pump").text
    assert USER not in client.get("/console/conversations").text
    assert (
        client.post("/console/review", data=review_form(world, "confirm", "cand-a", csrf)).status_code == 303
    )
    client.post("/console/entry/invalidate", data={"csrf": csrf, "entry_id": world.note, "reason": "wrong"})
    client.post("/console/forget", data={"csrf": csrf, "user": USER, "confirm": USER})
    assert trust_of(lighthouse, world.admin, "cand-a") == PENDING
    assert lighthouse.result("impact_of_entry", {"entry_id": world.note}, world.admin)["invalidated"] is False
    said = lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)
    assert len(said) == 1


def test_a_read_only_key_sees_pages_but_every_action_is_403(lighthouse):
    world = seeded(lighthouse)
    reader = lighthouse.key(world.tenant, agent="reader", scopes=["read"])
    client, csrf = signed_in(lighthouse, reader)
    review = client.get("/console/review")
    assert review.status_code == 200 and "cand-a" in review.text and 'id="read-only"' in review.text
    assert 'value="confirm:0"' not in review.text  # the page offers no action
    _refused(
        client.post("/console/review", data=review_form(world, "confirm", "cand-a", csrf)), 403, "forbidden"
    )
    _refused(
        client.post("/console/review", data=review_form(world, "reject", "cand-b", csrf, "no")),
        403,
        "forbidden",
    )
    _refused(
        client.post("/console/entry/invalidate", data={"csrf": csrf, "entry_id": world.note, "reason": "x"}),
        403,
        "forbidden",
    )
    assert client.get("/console/forget?user=wilhelmina").status_code == 403
    _refused(
        client.post("/console/forget", data={"csrf": csrf, "user": USER, "confirm": USER}), 403, "forbidden"
    )
    reviewer = lighthouse.key(world.tenant, agent="reviewer", scopes=["read", "review"])
    review_client, review_csrf = signed_in(lighthouse, reviewer)
    _refused(
        review_client.post("/console/forget", data={"csrf": review_csrf, "user": USER, "confirm": USER}),
        403,
        "forbidden",
    )
    assert trust_of(lighthouse, world.admin, "cand-a") == PENDING
    assert trust_of(lighthouse, world.admin, "cand-b") == PENDING
    assert lighthouse.result("impact_of_entry", {"entry_id": world.note}, world.admin)["invalidated"] is False
    assert len(lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)) == 1


def test_a_missing_or_wrong_csrf_token_is_403_and_changes_nothing(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    _other_client, other_csrf = signed_in(lighthouse, world.admin)
    for token in (None, "", "wrong", csrf[:-1], other_csrf):
        _refused(
            client.post("/console/review", data=review_form(world, "confirm", "cand-a", token)),
            403,
            "forbidden",
        )
        invalidating = {
            "entry_id": world.note,
            "reason": "wrong",
            **({"csrf": token} if token is not None else {}),
        }
        _refused(client.post("/console/entry/invalidate", data=invalidating), 403, "forbidden")
        forgetting = {"user": USER, "confirm": USER, **({"csrf": token} if token is not None else {})}
        _refused(client.post("/console/forget", data=forgetting), 403, "forbidden")
    _refused(client.post("/console/sign-out", data={"csrf": "wrong"}), 403, "forbidden")
    elsewhere = {"Origin": "http://elsewhere.example"}
    _refused(
        client.post("/console/review", data=review_form(world, "confirm", "cand-a", csrf), headers=elsewhere),
        403,
        "forbidden",
    )
    plain = httpx.Client(base_url=lighthouse.url)
    _refused(plain.post("/console/sign-in", data={"key": world.admin}, headers=elsewhere), 403, "forbidden")
    assert trust_of(lighthouse, world.admin, "cand-a") == PENDING
    assert lighthouse.result("impact_of_entry", {"entry_id": world.note}, world.admin)["invalidated"] is False
    assert len(lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)) == 1
    assert client.get("/console/").status_code == 200  # the session is still there


def test_bad_forms_are_refused_whole(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    _refused(
        client.post("/console/review", data=review_form(world, "reject", "cand-b", csrf, "")),
        400,
        "invalid_argument",
    )
    _refused(client.post("/console/review", data={"csrf": csrf, "act": "delete:0"}), 400, "invalid_argument")
    _refused(
        client.post("/console/review", data={"csrf": csrf, "act": "confirm:0", "item-0": "{"}),
        400,
        "invalid_argument",
    )
    _refused(
        client.post("/console/review", data={"csrf": csrf, "act": "confirm:picked"}), 400, "invalid_argument"
    )
    mixed = {
        **review_form(world, "reject", "cand-a", csrf),
        "act": "reject:picked",
        "pick": ["0", "1"],
        "item-1": f'["Device", "cand-b", "{world.candidates["cand-b"]}"]',
        "why-1": "not in an attic",
    }
    _refused(client.post("/console/review", data=mixed), 400, "invalid_argument")  # cand-a has no reason
    _refused(
        client.post("/console/entry/invalidate", data={"csrf": csrf, "entry_id": world.note, "reason": " "}),
        400,
        "invalid_argument",
    )
    _refused(
        client.post("/console/forget", data={"csrf": csrf, "user": USER, "confirm": "bob"}),
        400,
        "invalid_argument",
    )
    _refused(client.get("/console/entity?kind=Boat&key=x"), 404, "not_found")
    _refused(client.get("/console/entity?kind=Device&key=5x&int=1"), 400, "invalid_argument")
    _refused(client.get("/console/kind?kind=Device&from=-1"), 400, "invalid_argument")
    assert (
        client.post(
            "/console/review",
            content=b"x" * 2_000_000,
            headers={"content-type": "application/x-www-form-urlencoded"},
        ).status_code
        == 413
    )
    assert trust_of(lighthouse, world.admin, "cand-a") == PENDING
    assert trust_of(lighthouse, world.admin, "cand-b") == PENDING
    assert lighthouse.result("impact_of_entry", {"entry_id": world.note}, world.admin)["invalidated"] is False
    assert len(lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)) == 1
