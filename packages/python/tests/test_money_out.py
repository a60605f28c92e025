"""Refunds, payouts and their sandbox simulations against the gateway the ava test starts (with the payouts plugin)."""

from __future__ import annotations

import time

import pytest

from gateway_client import GatewayClient, GatewayError


def test_a_refund_and_payouts_are_created_once_listed_cancelled_and_simulated_to_their_end(client: GatewayClient) -> None:
    sandbox = client.sandbox
    stamp = time.time_ns()
    invoice = sandbox.invoices.create(external_id=f"py-refund-{stamp}", coin="eth", amount_crypto="0.01")
    sandbox.simulate.detect(invoice["id"])
    sandbox.simulate.overpaid(invoice["id"], multiplier=1.5)

    key = f"py-r-{stamp}"
    status, refund = sandbox.refunds.create_with_status(invoice["id"], idempotency_key=key, reason="excess")
    assert status == 201
    assert (refund["object"], refund["invoice_id"], refund["status"], refund["amount"]) == ("refund", invoice["id"], "awaiting_claim", "0.005")
    replay_status, replay = sandbox.refunds.create_with_status(invoice["id"], idempotency_key=key, reason="excess")
    assert (replay_status, replay) == (200, refund)
    with pytest.raises(GatewayError) as exceeding:
        sandbox.refunds.create(invoice["id"], amount="1")
    assert (exceeding.value.status, exceeding.value.error_code) == (422, "refund_exceeds_received")
    assert exceeding.value.details and "received_units" in exceeding.value.details

    second = sandbox.refunds.create(invoice["id"], amount="0.001")
    assert [r["id"] for r in sandbox.refunds.list_for_invoice(invoice["id"])["items"]] == [refund["id"], second["id"]]
    assert sorted(r["id"] for r in sandbox.refunds.iterate(limit=1)) == sorted([refund["id"], second["id"]])
    assert sandbox.refunds.list(limit=1)["next_cursor"]
    assert sandbox.refunds.retrieve(refund["id"])["reason"] == "excess"
    assert sandbox.refunds.cancel(second["id"])["status"] == "cancelled"
    walked = [sandbox.simulate.refund(refund["id"], step)["status"] for step in ("claim", "approve", "send", "confirm")]
    assert walked == ["claimed", "approved", "sent", "completed"]
    with pytest.raises(GatewayError) as invalid:
        sandbox.simulate.refund(refund["id"], "send")
    assert (invalid.value.status, invalid.value.error_code) == (409, "item_transition_invalid")

    a = sandbox.invoices.create(external_id=f"py-payout-a-{stamp}", coin="eth", amount_crypto="0.01")
    b = sandbox.invoices.create(external_id=f"py-payout-b-{stamp}", coin="eth", amount_crypto="0.01")
    recipients = [
        {"address": a["address"], "coin": "eth", "amount": "0.002", "reference": f"py-a-{stamp}"},
        {"address": b["address"], "coin": "eth", "amount": "0.003", "reference": f"py-b-{stamp}", "reason": "fees"},
    ]
    status, created = sandbox.payouts.create_with_status(recipients, idempotency_key=f"py-p-{stamp}")
    assert status == 201
    one, two = created["items"]
    assert (one["object"], one["status"], one["address"], two["amount"]) == ("payout", "pending_approval", a["address"], "0.003")
    assert [p["id"] for p in sandbox.payouts.create(recipients, idempotency_key=f"py-p-{stamp}")] == [one["id"], two["id"]]
    assert sorted(p["id"] for p in sandbox.payouts.list()["items"]) == sorted([one["id"], two["id"]])
    assert sandbox.payouts.retrieve(two["id"])["reason"] == "fees"
    assert sandbox.payouts.cancel(two["id"])["status"] == "cancelled"
    assert [sandbox.simulate.payout(one["id"], step)["status"] for step in ("approve", "send", "fail")] == ["approved", "sent", "failed"]
    with pytest.raises(GatewayError) as conflict:
        sandbox.payouts.create([dict(recipients[0], amount="0.009")])
    assert (conflict.value.status, conflict.value.error_code) == (409, "payout_reference_conflict")
    with pytest.raises(GatewayError) as missing:
        sandbox.payouts.retrieve("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert (missing.value.status, missing.value.error_code) == (404, "payout_not_found")
