"""``GatewayClient``: every signed REST and sandbox operation, with retries where repeating is harmless.

The resources (``invoices``, ``refunds``, ``payouts``, ``checkout_sessions``, ``payment_links``,
``webhooks``, ``wallets()``) call the sandbox's routes when the secret is a sandbox secret
(``sk_sandbox_``): going live changes only the credentials.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Tuple
from urllib.parse import quote, urlencode

from ._operations import OPERATIONS, RETRY_SAFE
from .errors import GatewayConnectionError, GatewayError
from .signing import is_ascii_digits, sign_request

RETRYABLE_STATUSES = frozenset({429, 503})
#: The prefix of a sandbox project's API secret (spec 5.1); a production or testnet secret is 64 hex characters.
SANDBOX_SECRET_PREFIX = "sk_sandbox_"
USER_AGENT = "gateway-client-python/0.1"


def is_idempotent(operation_id: str) -> bool:
    """Whether the call may be retried: the gateway's OpenAPI document says so per operation (x-retry-safe)."""
    if operation_id not in OPERATIONS:
        raise KeyError(operation_id)
    return operation_id in RETRY_SAFE


def parse_retry_after(value: Optional[str]) -> Optional[int]:
    """Retry-After in seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if is_ascii_digits(value):
        return int(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0, int(at.timestamp() - time.time() + 0.999))


def is_sandbox_secret(api_secret: str) -> bool:
    """Whether the secret is a sandbox secret: the client's resources then call the ``/api/v1/sandbox`` routes."""
    return api_secret.startswith(SANDBOX_SECRET_PREFIX)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:  # a signed call is never re-sent elsewhere
        return None


class GatewayClient:
    """Signed calls to a gateway for one project (spec 5.1).

    ``max_retries`` (default 2) applies to reads and invoice creation on 429, 503 and network
    errors, honouring Retry-After up to ``max_retry_after`` seconds (default 60); other calls are
    sent once. ``timeout`` is per attempt, in seconds.

    With a sandbox secret (``sk_sandbox_``, ``is_sandbox``) the resources call the sandbox's
    routes (``/api/v1/sandbox/...``); ``sandbox`` holds what only the sandbox has (simulations,
    clock, reset, delete) and the deprecated aliases of the resources.
    """

    def __init__(self, base_url: str, project_id: str, api_secret: str, *, max_retries: int = 2, max_retry_after: int = 60, timeout: float = 30.0, sleep: Callable[[float], None] = time.sleep) -> None:
        if not base_url or not project_id or not api_secret:
            raise TypeError("base_url, project_id and api_secret are required")
        self.base_url = base_url.rstrip("/")
        self.project_id = project_id
        self._secret = api_secret
        self.max_retries = max(0, max_retries)
        self.max_retry_after = max_retry_after
        self.timeout = timeout
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect())
        self._last_write: Dict[str, int] = {}
        #: Whether the secret is a sandbox secret: the resources then call the sandbox's routes.
        self.is_sandbox = is_sandbox_secret(api_secret)
        sandbox = self.is_sandbox
        self.invoices = _Invoices(self, sandbox=sandbox)
        #: Production and testnet projects only: with a sandbox secret the gateway answers 403 ``production_project_required``.
        self.orphan_payments = _OrphanPayments(self)
        self.webhooks = _Webhooks(self, sandbox=sandbox)
        self.refunds = _Refunds(self, "/api/v1/sandbox" if sandbox else "/api/v1")
        self.payouts = _Payouts(self, "/api/v1/sandbox" if sandbox else "/api/v1")
        self.checkout_sessions = _CheckoutSessions(self, sandbox=sandbox)
        self.payment_links = _PaymentLinks(self, sandbox=sandbox)
        self.sandbox = _Sandbox(self)

    # -- generic ---------------------------------------------------------------------------------
    def request(self, operation_id: str, *, params: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Any:
        return self.request_with_status(operation_id, params=params, query=query, body=body)[1]

    def request_with_status(self, operation_id: str, *, params: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Tuple[int, Any]:
        return self._operation(operation_id, params=params, query=query, body=body)

    def _operation(self, operation_id: str, *, params: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None, body: Any = None, idempotency_key: Optional[str] = None) -> Tuple[int, Any]:
        """An operation of the table; an ``idempotency_key`` is sent as ``Idempotency-Key`` and makes the call safe to retry."""
        if operation_id not in OPERATIONS:
            raise KeyError(f"unknown operation {operation_id}")
        method, template, path_params, _query_params = OPERATIONS[operation_id]
        path = template
        for name in path_params:
            value = (params or {}).get(name)
            if not isinstance(value, str) or not value:
                raise TypeError(f"{operation_id}: path parameter {name} is required")
            path = path.replace("{" + name + "}", quote(value, safe=""))
        keyed, headers = _idempotency(idempotency_key)
        return self._send(method, path + _query_string(query), body, is_idempotent(operation_id) or keyed, headers)

    def call(self, method: str, path: str, body: Any = None) -> Tuple[int, Any]:
        """An untyped signed call (path may carry a query); retried like a read when GET."""
        return self._send(method.upper(), path, body, method.upper() == "GET")

    def paginate(self, operation_id: str, *, params: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None) -> Iterator[Dict[str, Any]]:
        """Every item of a cursor-paginated list, fetching pages as the loop asks for them."""
        cursor: Optional[str] = None
        while True:
            page_query = dict(query or {})
            if cursor is not None:
                page_query["cursor"] = cursor
            page = self.request(operation_id, params=params, query=page_query)
            yield from page["items"]
            cursor = page.get("next_cursor")
            if cursor is None:
                return

    def project(self) -> Dict[str, Any]:
        """The project the client signs for (its ``kind``: ``production``, ``testnet`` or ``sandbox``)."""
        return self.request("getProject")

    def wallets(self) -> Any:
        """The project's wallets, one per chain; for a sandbox secret the sandbox project's testnet xpubs (without the ownership fields)."""
        if self.is_sandbox:
            return self.request("getSandboxByProjectIdWallets", params={"projectId": self.project_id})
        return self.request("getWallets")

    # -- transport -------------------------------------------------------------------------------
    def _send(self, method: str, path: str, body: Any, idempotent: bool, extra_headers: Optional[Mapping[str, str]] = None) -> Tuple[int, Any]:
        url = self.base_url + (path if path.startswith("/") else "/" + path)
        raw_body = "" if body is None else json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        attempts = 1 + self.max_retries if idempotent else 1
        attempt = 0
        while True:
            attempt += 1
            headers = dict(extra_headers or {})
            headers.update(sign_request(project_id=self.project_id, secret=self._secret, method=method, url=url, raw_body=raw_body, timestamp=self._timestamp_for(method, url, raw_body)))
            headers["Accept"] = "application/json"
            headers["User-Agent"] = USER_AGENT
            if raw_body:
                headers["Content-Type"] = "application/json"
            request = urllib.request.Request(url, data=raw_body.encode("utf-8") if raw_body else None, headers=headers, method=method)
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    return response.status, _parse(response.read())
            except urllib.error.HTTPError as answer:
                parsed = _parse(answer.read())
                retry_after = parse_retry_after(answer.headers.get("Retry-After"))
                error = GatewayError(status=answer.code, body=parsed, request_id=answer.headers.get("X-Request-Id"), retry_after=retry_after, method=method, path=path.split("?")[0])
                wait = retry_after if retry_after is not None else _backoff(attempt)
                if answer.code not in RETRYABLE_STATUSES or attempt >= attempts or wait > self.max_retry_after:
                    raise error from None
                self._sleep(wait)
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError) as failure:
                if attempt >= attempts:
                    raise GatewayConnectionError(method, path.split("?")[0], attempt, failure) from failure
                self._sleep(_backoff(attempt))


    def _timestamp_for(self, method: str, url: str, raw_body: str) -> int:
        """A repeated identical write in the same second is signed with the next unused second: the gateway answers a copy of a signed write with the first answer, without running it."""
        now = int(time.time())
        if method in ("GET", "HEAD"):
            return now
        for key in [k for k, at in self._last_write.items() if at < now - 660]:
            del self._last_write[key]
        key = f"{method}\n{url}\n{raw_body}"
        previous = self._last_write.get(key)
        stamp = previous + 1 if previous is not None and previous >= now else now
        self._last_write[key] = stamp
        return stamp


def _parse(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _backoff(attempt: int) -> float:
    ceiling = min(8.0, 0.5 * 2 ** (attempt - 1))
    return ceiling / 2 + random.random() * ceiling / 2


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    if not query:
        return ""
    pairs = [(k, _query_value(v)) for k, v in query.items() if v is not None]
    return "?" + urlencode(pairs) if pairs else ""


def _query_value(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class _Invoices:
    """The project's invoices (``/api/v1/invoices``, or ``/api/v1/sandbox/invoices`` on the sandbox's mount)."""

    def __init__(self, client: GatewayClient, sandbox: bool) -> None:
        self._c = client
        self._p = "Sandbox" if sandbox else ""

    def create(self, **body: Any) -> Dict[str, Any]:
        """Creates an invoice; a replay with the same external_id answers the existing one (retried safely)."""
        return self._c.request(f"post{self._p}Invoices", body=body)

    def retrieve(self, invoice_id: str) -> Dict[str, Any]:
        return self._c.request(f"get{self._p}InvoicesById", params={"id": invoice_id})

    def list(self, **query: Any) -> Dict[str, Any]:
        return self._c.request(f"get{self._p}Invoices", query=query)

    def iterate(self, **query: Any) -> Iterator[Dict[str, Any]]:
        return self._c.paginate(f"get{self._p}Invoices", query=query)

    def transactions(self, invoice_id: str, **query: Any) -> Dict[str, Any]:
        """One page of the invoice's transactions (``cursor``, ``limit``)."""
        return self._c.request(f"get{self._p}InvoicesByIdTransactions", params={"id": invoice_id}, query=query)

    def cancel(self, invoice_id: str) -> Dict[str, Any]:
        return self._c.request(f"post{self._p}InvoicesByIdCancel", params={"id": invoice_id})


class _OrphanPayments:
    def __init__(self, client: GatewayClient) -> None:
        self._c = client

    def list(self, **query: Any) -> Dict[str, Any]:
        return self._c.request("getOrphanPayments", query=query)

    def iterate(self, **query: Any) -> Iterator[Dict[str, Any]]:
        return self._c.paginate("getOrphanPayments", query=query)

    def attribute(self, tx_hash: str, **body: Any) -> Dict[str, Any]:
        return self._c.request("postOrphanPaymentsByTxHashAttribute", params={"tx_hash": tx_hash}, body=body)


class _Events:
    def __init__(self, client: GatewayClient, prefix: str) -> None:
        self._c, self._p = client, prefix

    def list(self, **query: Any) -> Dict[str, Any]:
        return self._c.request(f"get{self._p}WebhooksEvents", query=query)

    def iterate(self, **query: Any) -> Iterator[Dict[str, Any]]:
        return self._c.paginate(f"get{self._p}WebhooksEvents", query=query)

    def retrieve(self, event_id: str) -> Dict[str, Any]:
        return self._c.request(f"get{self._p}WebhooksEventsByEventId", params={"event_id": event_id})

    def resend(self, event_id: str) -> Dict[str, Any]:
        """A new event with a fresh event_id (never retried)."""
        return self._c.request(f"post{self._p}WebhooksEventsByEventIdResend", params={"event_id": event_id})


class _Webhooks:
    def __init__(self, client: GatewayClient, sandbox: bool) -> None:
        self._c = client
        self._p = "Sandbox" if sandbox else ""
        self.events = _Events(client, self._p)

    def stream(self, **query: Any) -> Dict[str, Any]:
        """Events in commit order with their exact bodies, after a cursor (long poll with wait=)."""
        return self._c.request(f"get{self._p}WebhooksStream", query=query)


class _Simulate:
    """Drive a sandbox invoice through its lifecycle (spec 4.5); each call emits its webhook event."""

    def __init__(self, client: GatewayClient) -> None:
        self._c = client

    def _run(self, name: str, invoice_id: str, body: Any = None) -> Dict[str, Any]:
        return self._c.request(f"postSandboxInvoicesByInvoiceIdSimulate{name}", params={"invoiceId": invoice_id}, body=body)

    def detect(self, invoice_id: str, seed: Optional[str] = None) -> Dict[str, Any]:
        return self._run("Detect", invoice_id, {} if seed is None else {"seed": seed})

    def paid(self, invoice_id: str) -> Dict[str, Any]:
        return self._run("Paid", invoice_id)

    def overpaid(self, invoice_id: str, **body: Any) -> Dict[str, Any]:
        return self._run("Overpaid", invoice_id, body)

    def partial(self, invoice_id: str, **body: Any) -> Dict[str, Any]:
        return self._run("Partial", invoice_id, body)

    def expire(self, invoice_id: str) -> Dict[str, Any]:
        return self._run("Expire", invoice_id)

    def late_payment(self, invoice_id: str) -> Dict[str, Any]:
        return self._run("LatePayment", invoice_id)

    def reorg(self, invoice_id: str) -> Dict[str, Any]:
        return self._run("Reorg", invoice_id)

    def reconfirm(self, invoice_id: str) -> Dict[str, Any]:
        return self._run("Reconfirm", invoice_id)

    def duplicate_delivery(self, invoice_id: str) -> Dict[str, Any]:
        return self._run("DuplicateDelivery", invoice_id)

    def pick(self, session_id: str, coin: str) -> Dict[str, Any]:
        """The payer's pick of a coin on a sandbox checkout session's page: the invoice of that coin is created; answers the session."""
        return self._c.request("postSandboxCheckoutSessionsByIdSimulatePick", params={"id": session_id}, body={"coin": coin})

    def refund(self, refund_id: str, simulation: str, address: Optional[str] = None) -> Dict[str, Any]:
        """A sandbox refund's ``claim`` (optional ``address``), ``approve``, ``send``, ``confirm`` or ``fail``; answers the refund."""
        if simulation not in REFUND_SIMULATIONS:
            raise ValueError(f"unknown refund simulation {simulation}; one of {', '.join(REFUND_SIMULATIONS)}")
        body = ({"address": address} if address is not None else {}) if simulation == "claim" else None
        return self._c._send("POST", f"/api/v1/sandbox/refunds/{_segment(refund_id)}/simulate-{simulation}", body, False)[1]

    def payout(self, payout_id: str, simulation: str) -> Dict[str, Any]:
        """A sandbox payout's ``approve``, ``send``, ``confirm`` or ``fail``; answers the payout."""
        if simulation not in PAYOUT_SIMULATIONS:
            raise ValueError(f"unknown payout simulation {simulation}; one of {', '.join(PAYOUT_SIMULATIONS)}")
        return self._c._send("POST", f"/api/v1/sandbox/payouts/{_segment(payout_id)}/simulate-{simulation}", None, False)[1]

    def event(self, invoice_id: str, **body: Any) -> Dict[str, Any]:
        return self._run("Event", invoice_id, body)


REFUND_SIMULATIONS = ("claim", "approve", "send", "confirm", "fail")
PAYOUT_SIMULATIONS = ("approve", "send", "confirm", "fail")


def _segment(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError("an id is required")
    return quote(value, safe="")


def _idempotency(idempotency_key: Optional[str]) -> Tuple[bool, Dict[str, str]]:
    """A create with an ``Idempotency-Key`` answers the first result when repeated, so it is retried safely."""
    if idempotency_key is None:
        return False, {}
    if not isinstance(idempotency_key, str) or not 0 < len(idempotency_key) <= 255:
        raise ValueError("idempotency_key must be 1 to 255 characters")
    return True, {"Idempotency-Key": idempotency_key}


class _MoneyOut:
    """The calls refunds and payouts share under one mount (``/api/v1`` or ``/api/v1/sandbox``)."""

    _kind = ""

    def __init__(self, client: GatewayClient, prefix: str) -> None:
        self._c, self._p = client, prefix

    def _get(self, path: str, query: Optional[Mapping[str, Any]] = None) -> Any:
        return self._c._send("GET", path + _query_string(query), None, True)[1]

    def list(self, **query: Any) -> Dict[str, Any]:
        """One page, newest first (``status``, ``cursor``, ``limit``); pass ``next_cursor`` back as ``cursor``."""
        return self._get(f"{self._p}/{self._kind}", query)

    def iterate(self, **query: Any) -> Iterator[Dict[str, Any]]:
        cursor: Optional[str] = None
        while True:
            page = self.list(**dict(query, **({"cursor": cursor} if cursor is not None else {})))
            yield from page["items"]
            cursor = page.get("next_cursor")
            if cursor is None:
                return

    def retrieve(self, item_id: str) -> Dict[str, Any]:
        return self._get(f"{self._p}/{self._kind}/{_segment(item_id)}")

    def cancel(self, item_id: str) -> Dict[str, Any]:
        """Before approval only (409 ``item_not_cancellable`` after)."""
        return self._c._send("POST", f"{self._p}/{self._kind}/{_segment(item_id)}/cancel", None, False)[1]


class _Refunds(_MoneyOut):
    """Refunds of the project's invoices: proposed here, claimed by the payer, approved by an administrator."""

    _kind = "refunds"

    def create_with_status(self, invoice_id: str, *, idempotency_key: Optional[str] = None, **body: Any) -> Tuple[int, Dict[str, Any]]:
        """201 and the new refund, or 200 and the first one for a repeated ``idempotency_key``."""
        idempotent, headers = _idempotency(idempotency_key)
        return self._c._send("POST", f"{self._p}/invoices/{_segment(invoice_id)}/refunds", body, idempotent, headers)

    def create(self, invoice_id: str, *, idempotency_key: Optional[str] = None, **body: Any) -> Dict[str, Any]:
        """``amount``, ``rate_rule``, ``spread_percent``, ``address``, ``email``, ``reference``, ``reason``, ``metadata``; all optional."""
        return self.create_with_status(invoice_id, idempotency_key=idempotency_key, **body)[1]

    def list_for_invoice(self, invoice_id: str) -> Dict[str, Any]:
        """``{"items": [...]}``: every refund of the invoice."""
        return self._get(f"{self._p}/invoices/{_segment(invoice_id)}/refunds")


class _Payouts(_MoneyOut):
    """Payouts to addresses the project gives; approved by an administrator."""

    _kind = "payouts"

    def create_with_status(self, recipients: Any, *, idempotency_key: Optional[str] = None) -> Tuple[int, Dict[str, Any]]:
        idempotent, headers = _idempotency(idempotency_key)
        return self._c._send("POST", f"{self._p}/payouts", {"recipients": list(recipients)}, idempotent, headers)

    def create(self, recipients: Any, *, idempotency_key: Optional[str] = None) -> Any:
        """1 to 100 recipients ``{address, coin, amount, reference, reason?, metadata?}``, all created or none; answers the payouts."""
        return self.create_with_status(recipients, idempotency_key=idempotency_key)[1]["items"]


class _CheckoutSessions:
    """Checkout sessions: a price (any currency) the payer pays in the coin they pick on the session's page (``url``)."""

    def __init__(self, client: GatewayClient, sandbox: bool) -> None:
        self._c = client
        self._p = "Sandbox" if sandbox else ""

    def create_with_status(self, *, idempotency_key: Optional[str] = None, **body: Any) -> Tuple[int, Dict[str, Any]]:
        """201 and the new session, or 200 and the first one for a repeated ``idempotency_key`` (then retried safely)."""
        return self._c._operation(f"post{self._p}CheckoutSessions", body=body, idempotency_key=idempotency_key)

    def create(self, *, idempotency_key: Optional[str] = None, **body: Any) -> Dict[str, Any]:
        """``price_currency`` and ``price_amount`` (required); ``allowed_coins``, ``description``, ``line_items``, ``external_id``, ``customer_email``, ``return_url``, ``cancel_url``, ``metadata``, ``expires_in``."""
        return self.create_with_status(idempotency_key=idempotency_key, **body)[1]

    def list(self, **query: Any) -> Dict[str, Any]:
        """One page, newest first (``status``, ``payment_link_id``, ``external_id``, ``cursor``, ``limit``)."""
        return self._c.request(f"get{self._p}CheckoutSessions", query=query)

    def iterate(self, **query: Any) -> Iterator[Dict[str, Any]]:
        return self._c.paginate(f"get{self._p}CheckoutSessions", query=query)

    def retrieve(self, session_id: str) -> Dict[str, Any]:
        """One session with its invoices (one per coin the payer picked)."""
        return self._c.request(f"get{self._p}CheckoutSessionsById", params={"id": session_id})

    def expire(self, session_id: str) -> Dict[str, Any]:
        """Ends an open session now (its unpaid invoice is cancelled); 409 ``checkout_session_closed`` otherwise."""
        return self._c.request(f"post{self._p}CheckoutSessionsByIdExpire", params={"id": session_id})


class _PaymentLinks:
    """Payment links: reusable URLs (``url``, ``qr_url``) that open a checkout session for each payer."""

    def __init__(self, client: GatewayClient, sandbox: bool) -> None:
        self._c = client
        self._p = "Sandbox" if sandbox else ""

    def create_with_status(self, *, idempotency_key: Optional[str] = None, **body: Any) -> Tuple[int, Dict[str, Any]]:
        """201 and the new link, or 200 and the first one for a repeated ``idempotency_key`` (then retried safely)."""
        return self._c._operation(f"post{self._p}PaymentLinks", body=body, idempotency_key=idempotency_key)

    def create(self, *, idempotency_key: Optional[str] = None, **body: Any) -> Dict[str, Any]:
        """``price_currency`` and a fixed ``price_amount`` or ``min_amount`` and ``max_amount``; ``allowed_coins``, ``description``, ``line_items``, ``max_uses``, ``ask_email``, ``return_url``, ``metadata``."""
        return self.create_with_status(idempotency_key=idempotency_key, **body)[1]

    def list(self, **query: Any) -> Dict[str, Any]:
        """One page, newest first (``active``, ``cursor``, ``limit``)."""
        return self._c.request(f"get{self._p}PaymentLinks", query=query)

    def iterate(self, **query: Any) -> Iterator[Dict[str, Any]]:
        return self._c.paginate(f"get{self._p}PaymentLinks", query=query)

    def retrieve(self, link_id: str) -> Dict[str, Any]:
        """One link with its ``uses`` (paid sessions)."""
        return self._c.request(f"get{self._p}PaymentLinksById", params={"id": link_id})

    def deactivate(self, link_id: str) -> Dict[str, Any]:
        """Its URL opens no new session from now on; sessions already open go on."""
        return self._c.request(f"post{self._p}PaymentLinksByIdDeactivate", params={"id": link_id})


class _Clock:
    def __init__(self, client: GatewayClient) -> None:
        self._c = client

    def advance(self, *, chain: str, blocks: int) -> Dict[str, Any]:
        return self._c.request("postSandboxByProjectIdClockAdvance", params={"projectId": self._c.project_id}, body={"chain": chain, "blocks": blocks})


class _Sandbox:
    """What only the sandbox has: ``simulate``, ``clock``, ``reset()``, ``delete()``.

    ``invoices``, ``webhooks``, ``refunds``, ``payouts``, ``checkout_sessions``, ``payment_links``
    and ``wallets()`` here are deprecated aliases: the client's own resources call the same routes
    with a sandbox secret.
    """

    def __init__(self, client: GatewayClient) -> None:
        self._c = client
        self.invoices = _Invoices(client, sandbox=True)
        self.webhooks = _Webhooks(client, sandbox=True)
        self.refunds = _Refunds(client, "/api/v1/sandbox")
        self.payouts = _Payouts(client, "/api/v1/sandbox")
        self.checkout_sessions = _CheckoutSessions(client, sandbox=True)
        self.payment_links = _PaymentLinks(client, sandbox=True)
        self.simulate = _Simulate(client)
        self.clock = _Clock(client)

    def reset(self) -> Dict[str, Any]:
        return self._c.request("postSandboxByProjectIdReset", params={"projectId": self._c.project_id})

    def delete(self) -> Dict[str, Any]:
        return self._c.request("deleteSandboxByProjectId", params={"projectId": self._c.project_id})

    def wallets(self) -> Any:
        """Deprecated: ``client.wallets()`` calls this route with a sandbox secret."""
        return self._c.request("getSandboxByProjectIdWallets", params={"projectId": self._c.project_id})
