import test from 'ava';
import { isEvmAddress } from '@gw/chain-evm';
import type { AppError, ChainAdapterDeps } from '@gw/chain-api';
import { bscChain } from './index.js';

const adapter = bscChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, bscChain.definition);
const ADDR_0 = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

test('definition data: BEP-20 stablecoins have 18 decimals', (t) => {
  const d = bscChain.definition;
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals]),
    [
      ['bnb', 18],
      ['usdt_bep20', 18],
      ['usdc_bep20', 18],
    ],
  );
  t.is(d.networks.mainnet.evmChainId, 56);
  t.is(d.networks.testnets[0].evmChainId, 97);
  t.is(d.defaultConfirmations, 15);
  for (const coin of d.coins) for (const c of Object.values(coin.contracts ?? {})) t.true(isEvmAddress(c), c);
});

test('URIs carry chain 56 / 97; no BSC testnet stablecoins', (t) => {
  t.is(
    adapter.paymentUri({ coin: 'usdt_bep20', network: 'mainnet', address: ADDR_0, amountUnits: 10n ** 18n }),
    `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${ADDR_0}&uint256=1000000000000000000`,
  );
  t.is(adapter.paymentUri({ coin: 'bnb', network: 'testnet', address: ADDR_0, amountUnits: 3n }), `ethereum:${ADDR_0}@97?value=3`);
  const error = t.throws(() => adapter.paymentUri({ coin: 'usdc_bep20', network: 'testnet', address: ADDR_0, amountUnits: 1n }));
  t.is((error as AppError).code, 'validation_error');
});
