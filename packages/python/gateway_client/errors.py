"""The exceptions the client raises."""

from __future__ import annotations

from typing import Any, Mapping, Optional


class GatewayError(Exception):
    """The gateway answered with an error status. Branch on ``error_code`` (docs/errors.md), never on the message."""

    def __init__(self, *, status: int, body: Any, request_id: Optional[str], retry_after: Optional[int], method: str, path: str) -> None:
        envelope = body if isinstance(body, dict) and isinstance(body.get("error_code"), str) else None
        self.status = status
        self.error_code: str = envelope["error_code"] if envelope else f"http_{status}"
        self.message: str = str(envelope.get("message", "")) if envelope else f"HTTP {status} from {method} {path}"
        self.request_id: Optional[str] = (envelope.get("request_id") if envelope else None) or request_id
        self.retry_after = retry_after
        self.details: Optional[Mapping[str, Any]] = envelope.get("details") if envelope else None
        self.method = method
        self.path = path
        super().__init__(f"{self.error_code}: {self.message}")


class GatewayConnectionError(Exception):
    """No HTTP answer (connection refused or reset, DNS, timeout) after every allowed attempt."""

    def __init__(self, method: str, path: str, attempts: int, cause: BaseException) -> None:
        self.method = method
        self.path = path
        self.attempts = attempts
        super().__init__(f"{method} {path} failed after {attempts} attempt{'s' if attempts != 1 else ''}: {cause}")


class WebhookVerificationError(Exception):
    """A webhook delivery failed verification; ``reason`` is malformed_header, signature_mismatch, timestamp_out_of_window or invalid_json."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"webhook verification failed: {reason}")
