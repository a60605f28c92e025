import test from 'ava';
import type { ProviderOutput } from '@gw/kernel';
import type { ReceivedOutput } from '@gw/plugin-watchers/contract';
import { compare } from './reconciliation.js';

function recorded(address: string, txHash: string, outputIndex: number, amountUnits: bigint): ReceivedOutput {
  return {
    id: `${txHash}${outputIndex}`,
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    projectId: 'p',
    address,
    poolAddressId: 'a',
    amountUnits,
    blockHeight: 10,
    status: 'in_block',
    attestation: 'single',
    confirmed: true,
    invoiceId: null,
    match: 'orphan',
    receivedAt: new Date(0),
    spentBy: null,
    spentHeight: null,
    txHash,
    outputIndex,
  };
}

test('reconciliation reports outputs missing at the provider, unknown to the gateway and with another amount; unconfirmed provider outputs are no difference', (t) => {
  const ours = new Map([
    ['a1', [recorded('a1', 'aa', 0, 100n), recorded('a1', 'bb', 1, 200n)]],
    ['a2', [recorded('a2', 'cc', 0, 300n)]],
  ]);
  const theirs = new Map<string, ProviderOutput[]>([
    [
      'a1',
      [
        { txHash: 'aa', outputIndex: 0, amountUnits: 100n, blockHeight: 10 },
        { txHash: 'dd', outputIndex: 2, amountUnits: 50n, blockHeight: 11 },
        { txHash: 'ee', outputIndex: 0, amountUnits: 70n, blockHeight: null },
      ],
    ],
    ['a2', [{ txHash: 'cc', outputIndex: 0, amountUnits: 301n, blockHeight: 9 }]],
  ]);
  t.deepEqual(compare(['a1', 'a2', 'a3'], ours, theirs), [
    { address: 'a1', tx_hash: 'bb', output_index: 1, kind: 'missing_at_provider', gateway_units: '200', provider_units: null },
    { address: 'a1', tx_hash: 'dd', output_index: 2, kind: 'unknown_to_gateway', gateway_units: null, provider_units: '50' },
    { address: 'a2', tx_hash: 'cc', output_index: 0, kind: 'amount_differs', gateway_units: '300', provider_units: '301' },
  ]);
  t.deepEqual(
    compare(
      ['a1'],
      new Map([['a1', [recorded('a1', 'aa', 0, 100n)]]]),
      new Map([['a1', [{ txHash: 'aa', outputIndex: 0, amountUnits: 100n, blockHeight: 3 }]]]),
    ),
    [],
  );
});
