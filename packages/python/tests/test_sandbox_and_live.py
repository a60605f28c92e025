"""One client for sandbox and live (issue 42 item 4): the same integration code runs with a sandbox
secret and with a testnet project's secret, and each run's objects are on its own mount."""

from __future__ import annotations

import json
import time
from typing import Any, Dict

import pytest

from gateway_client import GatewayClient, GatewayError, is_sandbox_secret


def integration(gateway: GatewayClient, tag: str) -> Dict[str, Any]:
    """A partner's integration: nothing in it names the sandbox."""
    external_id = f"py-one-{tag}-{time.time_ns()}"
    invoice = gateway.invoices.create(external_id=external_id, coin="eth", amount_crypto="0.05")
    session = gateway.checkout_sessions.create(price_currency="eth", price_amount="0.02", external_id=external_id, idempotency_key=f"s-{invoice['id']}")
    payouts = gateway.payouts.create([{"address": invoice["address"], "coin": "eth", "amount": "0.001", "reference": f"py-one-{invoice['id']}"}])
    return {
        "project": gateway.project(),
        "invoice": invoice,
        "replay": gateway.invoices.create(external_id=external_id, coin="eth", amount_crypto="0.05"),
        "retrieved": gateway.invoices.retrieve(invoice["id"]),
        "listed": [i["id"] for i in gateway.invoices.iterate(external_id=external_id)],
        "transactions": gateway.invoices.transactions(invoice["id"]),
        "session": session,
        "expired": gateway.checkout_sessions.expire(session["id"]),
        "sessions": [s["id"] for s in gateway.checkout_sessions.iterate(external_id=external_id)],
        "link": gateway.payment_links.create(price_currency="USD", price_amount="5.00", description=f"py one {tag}"),
        "payout": payouts[0],
        "cancelled_payout": gateway.payouts.cancel(payouts[0]["id"]),
        "refunds": gateway.refunds.list_for_invoice(invoice["id"]),
        "wallets": gateway.wallets(),
        "cancelled": gateway.invoices.cancel(invoice["id"]),
        "events": gateway.webhooks.events.list(event_type="checkout_session.expired")["items"],
        "stream": gateway.webhooks.stream(start="earliest")["items"],
    }


def assert_the_integration_worked(run: Dict[str, Any]) -> None:
    invoice = run["invoice"]
    assert run["replay"]["id"] == invoice["id"]
    assert run["retrieved"]["id"] == invoice["id"]
    assert run["listed"] == [invoice["id"]]
    assert run["transactions"]["items"] == []
    assert run["expired"]["status"] == "expired"
    assert run["sessions"] == [run["session"]["id"]]
    assert run["link"]["object"] == "payment_link"
    assert run["payout"]["status"] == "pending_approval"
    assert run["cancelled_payout"]["status"] == "cancelled"
    assert run["refunds"]["items"] == []
    assert run["cancelled"]["status"] == "cancelled"
    assert any(w["chain"] == "eth" for w in run["wallets"])


def test_the_same_code_runs_with_a_sandbox_secret_on_the_sandbox_routes_and_with_a_live_secret_on_the_project_routes(fresh_sandbox_client: GatewayClient, live_client: GatewayClient, fresh_sandbox_credentials: dict, live_credentials: dict) -> None:
    client, credentials = fresh_sandbox_client, fresh_sandbox_credentials
    assert client.is_sandbox and is_sandbox_secret(credentials["api_secret"])
    assert not live_client.is_sandbox
    sandbox_run = integration(client, "sandbox")
    live_run = integration(live_client, "live")
    assert_the_integration_worked(sandbox_run)
    assert_the_integration_worked(live_run)

    assert (sandbox_run["project"]["kind"], sandbox_run["project"]["id"]) == ("sandbox", credentials["project_id"])
    assert (live_run["project"]["kind"], live_run["project"]["id"]) == ("testnet", live_credentials["project_id"])
    assert (sandbox_run["session"]["mode"], live_run["session"]["mode"]) == ("sandbox", "testnet")
    assert sandbox_run["invoice"]["project_id"] == credentials["project_id"]
    assert live_run["invoice"]["project_id"] == live_credentials["project_id"]
    assert len(sandbox_run["wallets"]) == 7 and "verified" not in sandbox_run["wallets"][0]
    assert [(w["chain"], w["verified"]) for w in live_run["wallets"]] == [("eth", True)]
    assert {e["mode"] for e in sandbox_run["events"]} == {"sandbox"}
    assert {e["mode"] for e in live_run["events"]} == {"testnet"}
    assert {json.loads(e["body"])["mode"] for e in sandbox_run["stream"]} == {"sandbox"}
    assert {json.loads(e["body"])["mode"] for e in live_run["stream"]} == {"testnet"}

    # Each run's objects on its own mount (the explicit operations), and each secret refused on the other.
    assert client.request("getSandboxInvoicesById", params={"id": sandbox_run["invoice"]["id"]})["status"] == "cancelled"
    assert client.request("getSandboxPayoutsById", params={"id": sandbox_run["payout"]["id"]})["id"] == sandbox_run["payout"]["id"]
    assert live_client.request("getInvoicesById", params={"id": live_run["invoice"]["id"]})["status"] == "cancelled"
    with pytest.raises(GatewayError) as sandbox_on_live:
        client.request("getInvoicesById", params={"id": sandbox_run["invoice"]["id"]})
    assert (sandbox_on_live.value.error_code, sandbox_on_live.value.status) == ("production_project_required", 403)
    with pytest.raises(GatewayError) as live_on_sandbox:
        live_client.request("getSandboxInvoicesById", params={"id": live_run["invoice"]["id"]})
    assert (live_on_sandbox.value.error_code, live_on_sandbox.value.status) == ("production_key_against_sandbox_project", 400)


def test_what_the_sandbox_does_not_mirror_answers_as_the_spec_says_and_the_deprecated_aliases_still_work(client: GatewayClient, live_client: GatewayClient) -> None:
    with pytest.raises(GatewayError) as orphans:
        client.orphan_payments.list()
    assert (orphans.value.error_code, orphans.value.status) == ("production_project_required", 403)
    assert live_client.orphan_payments.list()["items"] == []
    invoice = client.invoices.create(external_id=f"py-alias-{time.time_ns()}", coin="eth", amount_crypto="0.01")
    assert client.sandbox.simulate.detect(invoice["id"])["status"] == "detected"
    assert client.sandbox.invoices.retrieve(invoice["id"])["status"] == "detected"
    assert client.invoices.retrieve(invoice["id"])["status"] == "detected"
    assert client.webhooks.events.list(invoice_id=invoice["id"])["items"][0]["event_type"] == "invoice.detected"
    with pytest.raises(GatewayError) as refused:
        live_client.sandbox.clock.advance(chain="eth", blocks=1)
    assert (refused.value.error_code, refused.value.status) == ("sandbox_project_required", 403)
