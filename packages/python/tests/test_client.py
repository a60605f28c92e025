"""gateway_client against a running gateway: the same scenario as @gw/client's test."""

from __future__ import annotations

import json
import os
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from gateway_client import (
    GatewayClient,
    GatewayConnectionError,
    GatewayError,
    WebhookVerificationError,
    construct_event,
    parse_signature_header,
    sign_webhook,
    signing_string,
    signing_target,
    parse_retry_after,
    verify_webhook,
)

from servers import FaultProxy, Receiver


def unique(prefix: str) -> str:
    return f"{prefix}-{time.time_ns()}"


def test_a_sandbox_invoice_is_created_replayed_and_driven_to_paid(client: GatewayClient) -> None:
    external_id = unique("py-order")
    status, invoice = client.request_with_status("postSandboxInvoices", body={"external_id": external_id, "coin": "eth", "amount_crypto": "0.05"})
    assert status == 201
    replay_status, replay = client.request_with_status("postSandboxInvoices", body={"external_id": external_id, "coin": "eth", "amount_crypto": "0.05"})
    assert replay_status == 200
    assert replay["id"] == invoice["id"]
    assert invoice["status"] == "pending"
    assert client.sandbox.simulate.detect(invoice["id"], seed="py")["status"] == "detected"
    assert client.sandbox.simulate.paid(invoice["id"])["status"] == "paid"
    retrieved = client.sandbox.invoices.retrieve(invoice["id"])
    assert retrieved["status"] == "paid"
    assert retrieved["external_id"] == external_id
    assert len(retrieved["transactions"]) >= 1


def test_errors_carry_the_code_status_request_id_and_details(client: GatewayClient, gateway_url: str, credentials: dict) -> None:
    with pytest.raises(GatewayError) as missing:
        client.sandbox.invoices.retrieve("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert (missing.value.error_code, missing.value.status) == ("invoice_not_found", 404)
    assert missing.value.request_id
    assert missing.value.retry_after is None
    with pytest.raises(GatewayError) as invalid:
        client.sandbox.invoices.create(external_id="", coin="eth", amount_crypto="1")
    assert (invalid.value.error_code, invalid.value.status) == ("validation_error", 400)
    assert invalid.value.details
    invoice = client.sandbox.invoices.create(external_id=unique("py-transition"), coin="btc", amount_crypto="0.001")
    with pytest.raises(GatewayError) as refused:
        client.sandbox.simulate.paid(invoice["id"])
    assert (refused.value.error_code, refused.value.status) == ("sandbox_invoice_transition_invalid", 422)
    wrong = GatewayClient(gateway_url, credentials["project_id"], "sk_sandbox_" + "0" * 40)
    with pytest.raises(GatewayError) as unsigned:
        wrong.sandbox.invoices.list()
    assert (unsigned.value.error_code, unsigned.value.status) == ("signature_invalid", 401)


def test_iterate_walks_every_page_once(gateway_url: str, credentials: dict) -> None:
    # Through a proxy that records each request, so the pages themselves are seen: every request
    # asks for two, after the cursor of the one before. Mutation checked: with paginate() asking for
    # limit 200 (one page), this fails; before, it passed.
    proxy = FaultProxy(gateway_url)
    try:
        client = GatewayClient(proxy.url, credentials["project_id"], credentials["api_secret"])
        created = [client.sandbox.invoices.create(external_id=unique(f"py-page-{i}"), coin="trx", amount_crypto=str(i + 1))["id"] for i in range(5)]
        proxy.seen.clear()
        seen = [invoice["id"] for invoice in client.sandbox.invoices.iterate(limit=2)]
        pages = [parse_qs(urlsplit(line.split(" ", 1)[1]).query) for line in proxy.seen]
        assert len(set(seen)) == len(seen)
        assert set(created) <= set(seen)
        assert seen == [invoice["id"] for invoice in client.sandbox.invoices.list(limit=200)["items"]]
        assert len(pages) >= -(-len(seen) // 2) >= 3, "two items a page"
        assert all(page["limit"] == ["2"] for page in pages)
        assert "cursor" not in pages[0]
        cursors = [page["cursor"][0] for page in pages[1:]]
        assert len(set(cursors)) == len(cursors)
    finally:
        proxy.close()


def test_real_deliveries_verify_and_tampering_is_refused(client: GatewayClient, credentials: dict) -> None:
    receiver = Receiver()
    try:
        invoice = client.sandbox.invoices.create(external_id=unique("py-hook"), coin="btc", amount_crypto="0.002", callback_url=f"{receiver.url}/hooks")
        detected = client.sandbox.simulate.detect(invoice["id"])
        deadline = time.time() + 20
        while not receiver.requests and time.time() < deadline:
            time.sleep(0.05)
        assert receiver.requests, "no delivery arrived"
        _path, headers, body = receiver.requests[0]
        header = headers["x-service-signature"]
        event = construct_event(header=header, raw_body=body, secrets=[credentials["api_secret"]])
        assert event["event_id"] == detected["event_id"]
        assert event["event_type"] == "invoice.detected"
        assert event["data"]["invoice_id"] == invoice["id"]
        assert verify_webhook(header=header, raw_body=body + b" ", secrets=[credentials["api_secret"]]) == {"ok": False, "reason": "signature_mismatch"}
        assert verify_webhook(header="v1=abc", raw_body=body, secrets=[credentials["api_secret"]]) == {"ok": False, "reason": "malformed_header"}
        signed_at = parse_signature_header(header)[0]
        assert verify_webhook(header=header, raw_body=body, secrets=[credentials["api_secret"]], now=signed_at + 301) == {"ok": False, "reason": "timestamp_out_of_window"}
        assert verify_webhook(header=header, raw_body=body, secrets=["old", credentials["api_secret"]], now=signed_at + 300)["ok"]
        with pytest.raises(WebhookVerificationError) as error:
            construct_event(header=header, raw_body=b"tampered", secrets=[credentials["api_secret"]])
        assert error.value.reason == "signature_mismatch"
    finally:
        receiver.close()


def test_retries_only_idempotent_calls_honouring_retry_after(gateway_url: str, credentials: dict) -> None:
    proxy = FaultProxy(gateway_url)
    waits: list = []
    try:
        client = GatewayClient(proxy.url, credentials["project_id"], credentials["api_secret"], sleep=lambda s: (waits.append(s), time.sleep(min(s, 1)))[1])
        proxy.faults += [(503, "1"), (429, "0")]
        external_id = unique("py-retry")
        invoice = client.sandbox.invoices.create(external_id=external_id, coin="eth", amount_crypto="0.01")
        assert proxy.seen == ["POST /api/v1/sandbox/invoices"] * 3
        assert waits == [1, 0]
        assert [i["id"] for i in client.sandbox.invoices.list(external_id=external_id)["items"]] == [invoice["id"]]

        proxy.seen.clear()
        proxy.faults.append((503, "0"))
        with pytest.raises(GatewayError) as refused:
            client.sandbox.simulate.detect(invoice["id"])
        assert (refused.value.status, refused.value.retry_after) == (503, 0)
        assert len(proxy.seen) == 1

        proxy.seen.clear()
        proxy.faults.append((503, "3600"))
        with pytest.raises(GatewayError) as too_long:
            client.sandbox.invoices.retrieve(invoice["id"])
        assert too_long.value.retry_after == 3600
        assert len(proxy.seen) == 1

        proxy.seen.clear()
        proxy.faults.append("reset")
        assert client.sandbox.invoices.retrieve(invoice["id"])["id"] == invoice["id"]
        assert len(proxy.seen) == 2

        proxy.seen.clear()
        proxy.faults.append("reset")
        with pytest.raises(GatewayConnectionError) as dropped:
            client.sandbox.invoices.cancel(invoice["id"])
        assert dropped.value.attempts == 1
        assert len(proxy.seen) == 1
        assert client.sandbox.invoices.retrieve(invoice["id"])["status"] == "pending"
    finally:
        proxy.close()


def test_an_identical_write_repeated_at_once_is_signed_afresh(gateway_url: str, credentials: dict) -> None:
    proxy = FaultProxy(gateway_url)
    try:
        client = GatewayClient(proxy.url, credentials["project_id"], credentials["api_secret"])
        for _ in range(3):
            client.sandbox.clock.advance(chain="ton", blocks=1)
        assert len(set(proxy.signatures)) == 3
        assert len({stamp for stamp, _ in proxy.signatures}) == 3
        assert all(abs(int(stamp) - time.time()) <= 300 for stamp, _ in proxy.signatures)
    finally:
        proxy.close()


def test_signing_and_the_typescript_webhook_vector() -> None:
    assert signing_target("https://pay.example.test/api/v1/invoices") == "/api/v1/invoices"
    assert signing_target("https://pay.example.test/api/v1/invoices?limit=10&status=paid") == "/api/v1/invoices?limit=10&status=paid"
    assert signing_string("get", "/api/v1/invoices", "1700000000", "") == "GET\n/api/v1/invoices\n1700000000\n"
    vector = json.loads(os.environ["WEBHOOK_VECTOR"])
    assert sign_webhook(secrets=vector["secrets"], raw_body=vector["rawBody"], timestamp=vector["timestamp"]) == vector["header"]


def test_numbers_in_headers_are_ascii_digits_only() -> None:
    # str.isdigit() and int() take Unicode digits: "²" passed isdigit() then int() raised, "٣٣" read as 33.
    body = b'{"event_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}'
    signed = sign_webhook(secrets=["s"], raw_body=body, timestamp=33)
    assert verify_webhook(header=signed, raw_body=body, secrets=["s"], now=33)["ok"]
    for stamp in ["\u00b2", "\u0663\u0663", "\uff13\uff13", "3\u00b3", "+33", " 33", "3_3", ""]:
        header = signed.replace("t=33", f"t={stamp}")
        assert parse_signature_header(header) is None, stamp
        assert verify_webhook(header=header, raw_body=body, secrets=["s"], now=33) == {"ok": False, "reason": "malformed_header"}, stamp
        with pytest.raises(WebhookVerificationError):
            construct_event(header=header, raw_body=body, secrets=["s"], now=33)
    assert parse_signature_header("t=0033,v1=ab") == (33, ["ab"])
    assert parse_retry_after("12") == 12
    for value in ["\u00b2", "\u0663\u0663", "\uff11\uff12"]:
        assert parse_retry_after(value) is None, value


def test_the_stream_answers_events_in_order_after_a_cursor(client: GatewayClient) -> None:
    head = client.sandbox.webhooks.stream(start="latest")
    invoice = client.sandbox.invoices.create(external_id=unique("py-stream"), coin="eth", amount_crypto="0.02")
    detected = client.sandbox.simulate.detect(invoice["id"])
    query = {"after": head["next_cursor"]} if "next_cursor" in head else {"start": "earliest"}
    ids: list = []
    deadline = time.time() + 30
    while detected["event_id"] not in ids and time.time() < deadline:
        page = client.sandbox.webhooks.stream(wait=5, **query)
        ids += [item["event_id"] for item in page["items"]]
        if "next_cursor" in page:
            query = {"after": page["next_cursor"]}
    assert detected["event_id"] in ids


def test_with_signatures_covering_the_query_the_signed_target_is_the_request_target_sent() -> None:
    import hashlib
    import hmac
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    received: list = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode("utf-8")
            received.append((self.command, self.path, self.headers["X-Timestamp"], self.headers["X-Signature"], body))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "12")
            self.end_headers()
            self.wfile.write(b'{"items":[]}')

        do_GET = do_POST = _answer

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = GatewayClient(f"http://127.0.0.1:{server.server_address[1]}", "p", "secret")
        client.invoices.list(external_id="order 7/ü'+&x=1", status="paid", limit=10)
        client.call("POST", "/api/v1/invoices?dry=1", {"external_id": "é"})
        assert len(received) == 2
        for method, target, stamp, signature, body in received:
            assert "?" in target
            expected = hmac.new(b"secret", f"{method}\n{target}\n{stamp}\n{body}".encode("utf-8"), hashlib.sha256).hexdigest()
            assert signature == expected, target
    finally:
        server.shutdown()
        server.server_close()
