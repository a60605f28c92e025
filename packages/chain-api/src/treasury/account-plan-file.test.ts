import test from 'ava';
import { accountPlanFile, accountPlanFileStep } from './account-plan-file.js';
import type { AccountStep } from './account-treasury.js';

const key = { chain: 'eth', network: 'testnet', input: 'xpub', canonical: 'xpub' } as const;
const deposit: AccountStep = {
  id: 'auth-0',
  round: 1,
  stage: 1,
  description: 'Delegate 0xaa… to the sweeper',
  signer: { kind: 'deposit', address: '0xaa', key, index: 4, path: "m/44'/60'/0'/0/4" },
  kind: 'authorization',
  unsigned: { format: 'evm-7702-authorization', data: '{"chainId":"1","address":"0xbb","nonce":"0"}' },
  nonce: 0n,
  moves: {},
  feeUnits: 0n,
  to: '0xbb',
};
const operator: AccountStep = {
  ...deposit,
  id: 'submit-0',
  round: 2,
  kind: 'transaction',
  signer: { kind: 'operator', account: { role: 'gas', address: '0xcc', path: "m/44'/60'/1'/0/0" } },
  unsigned: { format: 'evm-tx', data: '0x02' },
  nonce: null,
  moves: { usdt: 12_345_678_901_234_567_890n },
  feeUnits: 21_000n * 30_000_000_000n,
};

test('a step becomes its file step: the signer account and path, amounts as decimal strings, no key material', (t) => {
  t.deepEqual(accountPlanFileStep(deposit), {
    id: 'auth-0',
    stage: 1,
    kind: 'authorization',
    description: 'Delegate 0xaa… to the sweeper',
    signer: { kind: 'deposit', address: '0xaa', path: "m/44'/60'/0'/0/4" },
    unsigned: deposit.unsigned,
    nonce: '0',
    to: '0xbb',
    moves: {},
    fee_units: '0',
  });
  t.deepEqual(accountPlanFileStep(operator).signer, { kind: 'operator', role: 'gas', address: '0xcc', path: "m/44'/60'/1'/0/0" });
  t.is(accountPlanFileStep(operator).nonce, null);
  t.deepEqual(accountPlanFileStep(operator).moves, { usdt: '12345678901234567890' });
  t.is(accountPlanFileStep(operator).fee_units, '630000000000000');
});

test("the file: header, evm_chain_id from the build context's chainId (number or decimal text), null without it", (t) => {
  const header = {
    planId: 'p1',
    chain: 'eth',
    network: 'sepolia',
    coin: 'usdt',
    method: 'eip7702' as const,
    round: 2 as const,
    destination: '0xdd',
    movedUnits: 5n,
    feeUnits: 7n,
    context: { chainId: '11155111' },
    createdAt: new Date('2026-11-28T00:00:00Z'),
  };
  const file = accountPlanFile(header, [operator]);
  t.like(file, {
    format: 'gateway-treasury-account-plan',
    version: 1,
    plan_id: 'p1',
    evm_chain_id: 11155111,
    round: 2,
    moved_units: '5',
    fee_units: '7',
    created_at: '2026-11-28T00:00:00.000Z',
  });
  t.is(file.steps.length, 1);
  t.is(accountPlanFile({ ...header, context: { chainId: 31337 } }, []).evm_chain_id, 31337);
  t.is(accountPlanFile({ ...header, chain: 'tron', context: { valid_until: 5 } }, []).evm_chain_id, null);
});

test("the file states the plan's sweeper (context.sweeper) as sweeper_contract, and nothing without one", (t) => {
  const header = {
    planId: 'p2',
    chain: 'eth',
    network: 'sepolia',
    coin: 'eth',
    method: 'sweeper_deployment' as const,
    round: 1 as const,
    destination: '0xdd',
    movedUnits: 0n,
    feeUnits: 7n,
    context: { chainId: '11155111', sweeper: '0x5e' },
    createdAt: new Date('2026-11-28T00:00:00Z'),
  };
  t.is(accountPlanFile(header, [operator]).sweeper_contract, '0x5e');
  t.is(accountPlanFile(header, [operator]).method, 'sweeper_deployment');
  t.false('sweeper_contract' in accountPlanFile({ ...header, context: { chainId: '1' } }, [operator]));
});
