import test from 'ava';
import { isEvmAddress } from '@gw/chain-evm';
import type { ChainAdapterDeps } from '@gw/chain-api';
import { polygonChain } from './index.js';

const adapter = polygonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, polygonChain.definition);
const XPUB = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
const ADDR_0 = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

test('definition data', (t) => {
  const d = polygonChain.definition;
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals]),
    [
      ['pol', 18],
      ['usdt_polygon', 6],
      ['usdc_polygon', 6],
    ],
  );
  t.is(d.networks.mainnet.evmChainId, 137);
  t.is(d.networks.testnets[0].id, 'amoy');
  t.is(d.networks.testnets[0].evmChainId, 80002);
  for (const coin of d.coins) for (const c of Object.values(coin.contracts ?? {})) t.true(isEvmAddress(c), c);
  t.is(d.coins.find((c) => c.id === 'usdc_polygon')?.contracts?.['polygon'], '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359');
});

test('same key, same address as Ethereum; URIs carry chain 137 / 80002', (t) => {
  t.is(adapter.deriveAddress(adapter.parseAccountKey(XPUB, 'mainnet'), 0).address, ADDR_0);
  t.is(
    adapter.paymentUri({ coin: 'usdt_polygon', network: 'mainnet', address: ADDR_0, amountUnits: 1_000_000n }),
    `ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=${ADDR_0}&uint256=1000000`,
  );
  t.is(
    adapter.paymentUri({ coin: 'usdc_polygon', network: 'testnet', address: ADDR_0, amountUnits: 5n }),
    `ethereum:0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582@80002/transfer?address=${ADDR_0}&uint256=5`,
  );
  t.is(adapter.paymentUri({ coin: 'pol', network: 'testnet', address: ADDR_0, amountUnits: 2n }), `ethereum:${ADDR_0}@80002?value=2`);
});
