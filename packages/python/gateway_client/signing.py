"""REST request signing (spec 5.1): lowercase hex HMAC-SHA256 of ``METHOD\\nTARGET\\nTIMESTAMP\\nRAW_BODY``."""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Dict, Optional
from urllib.parse import urlsplit

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
