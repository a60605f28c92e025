"""Webhook verification (spec 5.2): ``X-Service-Signature: t=<unix>,v1=<hex>[,v1=...]`` over ``f"{t}." + raw_body``."""

from __future__ import annotations

import hmac
import json
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .errors import WebhookVerificationError
from .signing import hmac_hex, is_ascii_digits

SIGNATURE_HEADER = "X-Service-Signature"
DEFAULT_TOLERANCE_SECONDS = 300
WEBHOOK_EVENT_TYPES = (
    "invoice.detected",
    "invoice.paid",
    "invoice.overpaid",
    "invoice.partial",
    "invoice.expired",
    "invoice.expired_paid_late",
    "invoice.reverted",
)
# Refund and payout events (issue 37), additions beside the seven; their data is
# {refund_id | payout_id, invoice_id (refunds), status, previous_status, refund | payout}.
REFUND_EVENT_TYPES = ("refund.created", "refund.claimed", "refund.approved", "refund.sent", "refund.completed", "refund.failed", "refund.cancelled")
PAYOUT_EVENT_TYPES = ("payout.created", "payout.approved", "payout.sent", "payout.completed", "payout.failed", "payout.cancelled")
# Checkout session events (issue 38); their data is
# {checkout_session_id, invoice_id (the paying invoice, or None), status, previous_status, checkout_session}.
SESSION_EVENT_TYPES = ("checkout_session.completed", "checkout_session.expired")
GATEWAY_EVENT_TYPES = WEBHOOK_EVENT_TYPES + REFUND_EVENT_TYPES + PAYOUT_EVENT_TYPES + SESSION_EVENT_TYPES


def parse_signature_header(header: Optional[str]) -> Optional[Tuple[int, List[str]]]:
    """(timestamp, v1 signatures), or None when malformed: exactly one ``t`` and at least one ``v1``."""
    if not isinstance(header, str):
        return None
    timestamps: List[str] = []
    signatures: List[str] = []
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep or not key:
            continue
        if key == "t":
            timestamps.append(value)
        elif key == "v1" and value:
            signatures.append(value)
    if len(timestamps) != 1 or not is_ascii_digits(timestamps[0]) or len(timestamps[0]) > 15 or not signatures:
        return None
    return int(timestamps[0]), signatures


def _check_secrets(secrets: Sequence[str]) -> None:
    if isinstance(secrets, str) or not secrets or any(not isinstance(s, str) or not s for s in secrets):
        raise TypeError("secrets must be a non-empty list of non-empty strings")


def verify_webhook(*, header: Optional[str], raw_body: Union[bytes, str], secrets: Sequence[str], now: Optional[int] = None, tolerance: int = DEFAULT_TOLERANCE_SECONDS) -> Dict[str, Any]:
    """``{"ok": True, "timestamp": t}`` or ``{"ok": False, "reason": ...}``; every (secret, v1) pair compared in constant time."""
    _check_secrets(secrets)
    parsed = parse_signature_header(header)
    if parsed is None:
        return {"ok": False, "reason": "malformed_header"}
    timestamp, candidates = parsed
    current = int(time.time()) if now is None else now
    if abs(current - timestamp) > tolerance:
        return {"ok": False, "reason": "timestamp_out_of_window"}
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    message = f"{timestamp}.".encode("utf-8") + body
    matched = False
    for secret in secrets:
        expected = hmac_hex(secret, message)
        for candidate in candidates:
            if hmac.compare_digest(candidate.encode("utf-8"), expected.encode("ascii")):
                matched = True
    return {"ok": True, "timestamp": timestamp} if matched else {"ok": False, "reason": "signature_mismatch"}


def construct_event(*, header: Optional[str], raw_body: Union[bytes, str], secrets: Sequence[str], now: Optional[int] = None, tolerance: int = DEFAULT_TOLERANCE_SECONDS) -> Dict[str, Any]:
    """The verified, parsed envelope; raises WebhookVerificationError (answer 401, or 400 for invalid_json)."""
    result = verify_webhook(header=header, raw_body=raw_body, secrets=secrets, now=now, tolerance=tolerance)
    if not result["ok"]:
        raise WebhookVerificationError(result["reason"])
    try:
        envelope = json.loads(raw_body)
    except ValueError:
        raise WebhookVerificationError("invalid_json") from None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("event_id"), str):
        raise WebhookVerificationError("invalid_json")
    return envelope


def sign_webhook(*, secrets: Sequence[str], raw_body: Union[bytes, str], timestamp: int) -> str:
    """``t=<timestamp>,v1=<hex>...``, one v1 per secret, as the gateway signs a delivery."""
    _check_secrets(secrets)
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    message = f"{timestamp}.".encode("utf-8") + body
    return ",".join([f"t={timestamp}"] + [f"v1={hmac_hex(secret, message)}" for secret in secrets])
