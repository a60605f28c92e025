"""REST request signing (spec 5.1): lowercase hex HMAC-SHA256 of ``METHOD\\nTARGET\\nTIMESTAMP\\nRAW_BODY``."""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Dict, Optional
from urllib.parse import urlsplit


def is_ascii_digits(value: str) -> bool:
    """Whether ``value`` is one or more of 0-9. ``str.isdigit()`` and ``int()`` also take other
    scripts' digits and superscripts (``"٣٣"`` reads as 33, ``"²"`` passes isdigit but int() raises),
    so a header number is checked with this before int()."""
    return value != "" and value.isascii() and value.isdigit()


def signing_target(url: str) -> str:
    """The pathname exactly as sent, plus ``?`` and the raw query when there is one (docs/decisions.md)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def signing_string(method: str, target: str, timestamp: str, raw_body: str) -> str:
    return f"{method.upper()}\n{target}\n{timestamp}\n{raw_body}"


def hmac_hex(secret: str, message: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def sign_request(*, project_id: str, secret: str, method: str, url: str, raw_body: str = "", timestamp: Optional[int] = None) -> Dict[str, str]:
    """The three authentication headers of one request."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    signature = hmac_hex(secret, signing_string(method, signing_target(url), stamp, raw_body).encode("utf-8"))
    return {"X-Project-Id": project_id, "X-Timestamp": stamp, "X-Signature": signature}
