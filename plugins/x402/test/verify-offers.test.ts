/**
 * Fresh payTo offers (issue 41, DESIGN41 "Offers"): each call an invoice of the project at its own
 * pool address with the requirement that pays it, found again by network and payTo; a coin x402
 * cannot be paid in is 422 `x402_coin_unsupported`; more than `payToPerMinute` calls of a project
 * in a minute are 429 `rate_limit_exceeded`.
 */
import test from 'ava';
import { CLI_ACTOR, isAppError } from '@gw/kernel';
import { projectWithPools } from '@gw/testing';
import { getAddress } from 'ethers';
import type { OfferInput } from '../src/services/x402-offers.js';
import { ANVIL_CAIP, resourceOf, signPayment, startX402, USDC, USDC_DOMAIN, type X402Harness } from './helpers.js';

const PER_MINUTE = 3;
let h: X402Harness;

test.before(async () => {
  h = await startX402({ poolSize: 8, config: { 'plugins.x402.payToPerMinute': PER_MINUTE } });
});
test.after.always(() => h?.stop());

const offers = () => h.gw.kernel.cradle.x402Offers;
const call = (coin = 'usdc', amount = '0.05'): OfferInput => ({
  coin,
  amount,
  resource: resourceOf('https://partner.test/api/weather'),
  source: 'facilitator',
});

test.serial('each offer is a new invoice at a fresh address, with the requirement that pays it, found again by network and payTo', async (t) => {
  const principal = await h.principal();
  const first = await offers().create(principal, call(), CLI_ACTOR);
  const second = await offers().create(principal, call('usdc', '0.10'), CLI_ACTOR);
  t.not(first.invoice.id, second.invoice.id);
  t.not(first.invoice.address.toLowerCase(), second.invoice.address.toLowerCase());
  for (const [offer, units] of [
    [first, '50000'],
    [second, '100000'],
  ] as const) {
    t.regex(offer.invoice.external_id, /^x402_[0-9A-Z]{26}$/);
    t.like(offer.invoice, {
      coin: 'usdc',
      status: 'pending',
      amount_crypto_units: units,
      metadata: { x402: { resource: 'https://partner.test/api/weather', source: 'facilitator' } },
    });
    t.deepEqual(offer.requirements, {
      scheme: 'exact',
      network: ANVIL_CAIP,
      asset: getAddress(h.usdc),
      amount: units,
      payTo: getAddress(offer.invoice.address),
      maxTimeoutSeconds: 300,
      extra: { name: USDC_DOMAIN.name, version: USDC_DOMAIN.version },
    });
    t.deepEqual(await offers().target(h.project.projectId, offer.requirements), {
      projectId: h.project.projectId,
      invoiceId: offer.invoice.id,
      source: 'facilitator',
    });
  }
  // Another project has no such offer.
  t.is(await offers().target('01ARZ3NDEKTSV4RRFFQ69G5FAV', first.requirements), undefined);

  // A partner's client pays the offer: the gateway verifies it against the offer's invoice.
  const payer = await h.payer(USDC);
  const payload = await signPayment(payer, second.requirements);
  const target = (await offers().target(h.project.projectId, second.requirements))!;
  t.deepEqual(await h.gw.kernel.cradle.x402Payments.verify(payload, second.requirements, target), { isValid: true, payer: payer.address });
});

test.serial('a coin x402 cannot be paid in here is 422 x402_coin_unsupported, and no invoice is made', async (t) => {
  const before = await h.gw.kernel.cradle.invoicesService.countActive(h.project.projectId);
  const error = await t.throwsAsync(offers().create(await h.principal(), call('tok', '1'), CLI_ACTOR));
  t.true(isAppError(error));
  t.like(error, { status: 422, code: 'x402_coin_unsupported' });
  t.is(await h.gw.kernel.cradle.invoicesService.countActive(h.project.projectId), before);
});

test.serial('more fresh addresses than payToPerMinute in a minute are refused with 429 rate_limit_exceeded', async (t) => {
  // A project of its own (another key), so the count starts at zero whatever the other tests took.
  const project = await projectWithPools(h.gw, h.operatorId, ['eth'], 'testnet', { evmAccount: 1 });
  const principal = (await h.gw.kernel.cradle.tenancyProjects.principal(project.projectId))!;
  // Calls of one minute window at most PER_MINUTE; the windows are cut on the clock, so within
  // 2 × PER_MINUTE + 1 calls (well under a minute) one window sees more than PER_MINUTE.
  let refusal: unknown;
  let made = 0;
  for (let i = 0; i < 2 * PER_MINUTE + 1 && refusal === undefined; i++) {
    try {
      await offers().create(principal, call(), CLI_ACTOR);
      made++;
    } catch (error) {
      refusal = error;
    }
  }
  t.true(isAppError(refusal), String(refusal));
  t.like(refusal, { status: 429, code: 'rate_limit_exceeded' });
  t.true(made >= PER_MINUTE && made <= 2 * PER_MINUTE, `${made} offers before the refusal`);
  t.is(await h.gw.kernel.cradle.invoicesService.countActive(project.projectId), made);
});
