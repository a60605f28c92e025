"""Fixtures: the running gateway, sandbox project and testnet project the ava test (packages/python/test/python-client.test.ts) passes in."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gateway_client import GatewayClient  # noqa: E402


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through packages/python/test/python-client.test.ts, which starts a gateway")
    return value


@pytest.fixture(scope="session")
def gateway_url() -> str:
    return _env("GATEWAY_URL")


@pytest.fixture(scope="session")
def credentials() -> dict:
    return {"project_id": _env("GATEWAY_PROJECT_ID"), "api_secret": _env("GATEWAY_API_SECRET")}


@pytest.fixture(scope="session")
def live_credentials() -> dict:
    """A testnet project's credentials (a 64-hex secret) on the same gateway, with a verified eth wallet."""
    return {"project_id": _env("GATEWAY_LIVE_PROJECT_ID"), "api_secret": _env("GATEWAY_LIVE_API_SECRET")}


@pytest.fixture(scope="session")
def fresh_sandbox_credentials() -> dict:
    """A second sandbox project's credentials, for tests that must not see the other tests' objects."""
    return {"project_id": _env("GATEWAY_FRESH_SANDBOX_PROJECT_ID"), "api_secret": _env("GATEWAY_FRESH_SANDBOX_API_SECRET")}


@pytest.fixture()
def fresh_sandbox_client(gateway_url: str, fresh_sandbox_credentials: dict) -> GatewayClient:
    return GatewayClient(gateway_url, fresh_sandbox_credentials["project_id"], fresh_sandbox_credentials["api_secret"])


@pytest.fixture()
def client(gateway_url: str, credentials: dict) -> GatewayClient:
    return GatewayClient(gateway_url, credentials["project_id"], credentials["api_secret"])


@pytest.fixture()
def live_client(gateway_url: str, live_credentials: dict) -> GatewayClient:
    return GatewayClient(gateway_url, live_credentials["project_id"], live_credentials["api_secret"])
