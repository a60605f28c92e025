/**
 * One webhook contract: @gw/client's webhook constants, event types and header parsing are
 * @gw/webhook-verify's own (the contract module, bundled into the client's build), not a copy, and
 * that module uses no platform API, so the web client can carry it.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import * as verify from '@gw/webhook-verify';
import * as contract from '@gw/webhook-verify/contract';
import * as client from '../src/index.ts';

test("the client exports the contract's own values, and so does @gw/webhook-verify", (t) => {
  for (const name of [
    'WEBHOOK_EVENT_TYPES',
    'REFUND_EVENT_TYPES',
    'PAYOUT_EVENT_TYPES',
    'SESSION_EVENT_TYPES',
    'GATEWAY_EVENT_TYPES',
    'isMoneyOutEventType',
    'isSessionEventType',
    'SIGNATURE_HEADER',
    'EVENT_ID_HEADER',
    'EVENT_TYPE_HEADER',
    'DELIVERY_ATTEMPT_HEADER',
    'WEBHOOK_USER_AGENT',
    'DEFAULT_TOLERANCE_SECONDS',
    'parseSignatureHeader',
  ] as const) {
    t.is(client[name], contract[name], `@gw/client ${name}`);
    t.is(verify[name], contract[name], `@gw/webhook-verify ${name}`);
  }
});

test('the contract module imports nothing, so it runs on any platform', (t) => {
  const source = readFileSync(new URL(import.meta.resolve('@gw/webhook-verify/contract')), 'utf8');
  t.notRegex(source, /^\s*(import|export\s[^;]*\sfrom)\s/m);
});
