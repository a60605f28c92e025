"""Fixtures: the running gateway and sandbox project the ava test (packages/python/test/python-client.test.ts) passes in."""

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


@pytest.fixture()
def client(gateway_url: str, credentials: dict) -> GatewayClient:
    return GatewayClient(gateway_url, credentials["project_id"], credentials["api_secret"])
