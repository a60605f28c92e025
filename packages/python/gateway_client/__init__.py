"""gateway_client: the gateway's Python client (standard library only).

Signed REST and sandbox calls (spec 5.1), typed errors, retries where repeating is harmless,
cursor pagination and webhook verification. See packages/python/README.md.
"""

from ._operations import OPERATIONS
from .client import SANDBOX_SECRET_PREFIX, GatewayClient, is_idempotent, is_sandbox_secret, parse_retry_after
from .errors import GatewayConnectionError, GatewayError, WebhookVerificationError
from .signing import sign_request, signing_string, signing_target
from .webhooks import DEFAULT_TOLERANCE_SECONDS, GATEWAY_EVENT_TYPES, PAYOUT_EVENT_TYPES, REFUND_EVENT_TYPES, SESSION_EVENT_TYPES, SIGNATURE_HEADER, WEBHOOK_EVENT_TYPES, construct_event, parse_signature_header, sign_webhook, verify_webhook

__all__ = [
    "OPERATIONS",
    "GatewayClient",
    "GatewayConnectionError",
    "GatewayError",
    "WebhookVerificationError",
    "DEFAULT_TOLERANCE_SECONDS",
    "SANDBOX_SECRET_PREFIX",
    "SIGNATURE_HEADER",
    "WEBHOOK_EVENT_TYPES",
    "REFUND_EVENT_TYPES",
    "PAYOUT_EVENT_TYPES",
    "SESSION_EVENT_TYPES",
    "GATEWAY_EVENT_TYPES",
    "construct_event",
    "is_idempotent",
    "is_sandbox_secret",
    "parse_retry_after",
    "parse_signature_header",
    "sign_request",
    "sign_webhook",
    "signing_string",
    "signing_target",
    "verify_webhook",
]
__version__ = "0.1.0"
