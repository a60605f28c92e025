"""Checkout sessions, payment links and the sandbox pick against the gateway the ava test starts (every plugin of the build)."""

from __future__ import annotations

import time

import pytest

from gateway_client import GatewayClient, GatewayError, is_idempotent


def test_a_checkout_session_is_created_once_listed_picked_and_paid_to_completed(client: GatewayClient) -> None:
    sandbox = client.sandbox
    stamp = time.time_ns()
    body = {"price_currency": "eth", "price_amount": "0.02", "description": "Order", "external_id": f"py-order-{stamp}", "metadata": {"cart": 7}}
    status, session = sandbox.checkout_sessions.create_with_status(idempotency_key=f"py-s-{stamp}", **body)
    assert status == 201
    assert (session["object"], session["status"], session["price_currency"], session["price_amount"], session["coin"]) == ("checkout_session", "open", "eth", "0.02", None)
    assert session["allowed_coins"] == ["eth"]
    assert session["metadata"] == {"cart": 7}
    assert session["url"].rsplit("/", 2)[-2] == "pay"
    replay_status, replay = sandbox.checkout_sessions.create_with_status(idempotency_key=f"py-s-{stamp}", **body)
    assert (replay_status, replay) == (200, session)
    with pytest.raises(GatewayError) as reused:
        sandbox.checkout_sessions.create(idempotency_key=f"py-s-{stamp}", **dict(body, price_amount="0.03"))
    assert (reused.value.status, reused.value.error_code) == (422, "idempotency_key_reused")

    other = sandbox.checkout_sessions.create(price_currency="btc", price_amount="0.001", external_id=f"py-order-{stamp}-b")
    assert [s["id"] for s in sandbox.checkout_sessions.list(external_id=f"py-order-{stamp}")["items"]] == [session["id"]]
    assert sandbox.checkout_sessions.list(limit=1)["items"][0]["id"] == other["id"]
    seen = [s["id"] for s in sandbox.checkout_sessions.iterate(limit=1)]
    assert session["id"] in seen and other["id"] in seen and len(set(seen)) == len(seen)

    picked = sandbox.simulate.pick(session["id"], "eth")
    assert picked["coin"] == "eth" and picked["invoice_id"]
    sandbox.simulate.detect(picked["invoice_id"])
    sandbox.simulate.paid(picked["invoice_id"])
    completed = sandbox.checkout_sessions.retrieve(session["id"])
    assert completed["status"] == "completed"
    assert "/receipts/" in completed["receipt_url"]
    assert [(i["invoice_id"], i["coin"], i["late"]) for i in completed["invoices"]] == [(picked["invoice_id"], "eth", False)]
    with pytest.raises(GatewayError) as closed:
        sandbox.checkout_sessions.expire(session["id"])
    assert (closed.value.status, closed.value.error_code) == (409, "checkout_session_closed")
    assert sandbox.checkout_sessions.expire(other["id"])["status"] == "expired"
    assert [s["id"] for s in sandbox.checkout_sessions.list(status="expired")["items"]] == [other["id"]]

    with pytest.raises(GatewayError) as unknown:
        sandbox.checkout_sessions.create(price_currency="XYZ", price_amount="5")
    assert (unknown.value.status, unknown.value.error_code) == (400, "validation_error")
    with pytest.raises(GatewayError) as not_allowed:
        sandbox.checkout_sessions.create(price_currency="USD", price_amount="5", allowed_coins=["btc", "nocoin"])
    assert (not_allowed.value.status, not_allowed.value.error_code) == (422, "coin_not_allowed")
    with pytest.raises(GatewayError) as missing:
        sandbox.checkout_sessions.retrieve("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert (missing.value.status, missing.value.error_code) == (404, "checkout_session_not_found")


def test_payment_links_are_created_listed_by_state_and_deactivated(client: GatewayClient) -> None:
    sandbox = client.sandbox
    stamp = time.time_ns()
    fixed = sandbox.payment_links.create(price_currency="USD", price_amount="25", description=f"Beans {stamp}", max_uses=10)
    assert (fixed["object"], fixed["active"], fixed["price_amount"], fixed["uses"], fixed["max_uses"], fixed["ask_email"]) == ("payment_link", True, "25.00", 0, 10, True)
    assert fixed["qr_url"] == fixed["url"] + "/qr.svg"
    status, ranged = sandbox.payment_links.create_with_status(idempotency_key=f"py-l-{stamp}", price_currency="EUR", min_amount="5", max_amount="500", ask_email=False)
    assert status == 201
    assert (ranged["price_amount"], ranged["min_amount"], ranged["max_amount"], ranged["ask_email"]) == (None, "5.00", "500.00", False)
    assert sandbox.payment_links.create(idempotency_key=f"py-l-{stamp}", price_currency="EUR", min_amount="5", max_amount="500", ask_email=False)["id"] == ranged["id"]

    assert [link["id"] for link in sandbox.payment_links.list(limit=2)["items"]] == [ranged["id"], fixed["id"]]
    seen = [link["id"] for link in sandbox.payment_links.iterate(limit=1)]
    assert seen.index(ranged["id"]) < seen.index(fixed["id"])
    assert sandbox.payment_links.retrieve(fixed["id"])["description"] == f"Beans {stamp}"
    deactivated = sandbox.payment_links.deactivate(fixed["id"])
    assert deactivated["active"] is False and deactivated["deactivated_at_iso"]
    assert fixed["id"] in [link["id"] for link in sandbox.payment_links.iterate(active=False)]
    assert fixed["id"] not in [link["id"] for link in sandbox.payment_links.iterate(active=True)]
    with pytest.raises(GatewayError) as both:
        sandbox.payment_links.create(price_currency="USD", price_amount="5", min_amount="1", max_amount="9")
    assert (both.value.status, both.value.error_code) == (400, "validation_error")
    with pytest.raises(GatewayError) as missing:
        sandbox.payment_links.deactivate("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert (missing.value.status, missing.value.error_code) == (404, "payment_link_not_found")


def test_reads_are_retry_safe_by_the_document_and_creates_only_with_a_key() -> None:
    assert is_idempotent("getCheckoutSessions") and is_idempotent("getSandboxPaymentLinksById")
    assert not is_idempotent("postCheckoutSessions") and not is_idempotent("postPaymentLinksByIdDeactivate")
    waits: list = []
    flaky = GatewayClient("http://127.0.0.1:9", "p", "s", sleep=waits.append, timeout=1)
    with pytest.raises(Exception):
        flaky.payment_links.create(price_currency="USD", price_amount="5")
    assert waits == [], "a create without a key is sent once"
    with pytest.raises(Exception):
        flaky.checkout_sessions.create(idempotency_key="k", price_currency="USD", price_amount="5")
    assert len(waits) == 2, "a keyed create is retried (twice by default)"
