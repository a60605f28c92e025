import test from 'ava';
import { isEvmAddress } from '@gw/chain-evm';
import type { AppError, ChainAdapterDeps } from '@gw/chain-api';
import { ethChain } from './index.js';

const adapter = ethChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, ethChain.definition);
// Account xpub m/44'/60'/0' of "abandon ... about" (recomputed from the phrase in chains/evm tests).
const XPUB = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
const ADDR_0 = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

test('definition data', (t) => {
  const d = ethChain.definition;
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals]),
    [
      ['eth', 18],
      ['usdt_erc20', 6],
      ['usdc_erc20', 6],
    ],
  );
  t.is(d.networks.mainnet.evmChainId, 1);
  t.is(d.networks.testnets[0].id, 'sepolia');
  t.is(d.networks.testnets[0].evmChainId, 11155111);
  t.is(d.defaultConfirmations, 12);
  t.is(d.verificationStandard, 'bip44');
  for (const coin of d.coins) {
    for (const contract of Object.values(coin.contracts ?? {})) t.true(isEvmAddress(contract), contract);
    t.truthy(coin.source);
  }
  t.is(d.coins.find((c) => c.id === 'usdt_erc20')?.contracts?.['ethereum'], '0xdAC17F958D2ee523a2206206994597C13D831ec7');
  t.is(d.coins.find((c) => c.id === 'usdc_erc20')?.contracts?.['sepolia'], '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238');
});

test('derives the published vector through the shared adapter', (t) => {
  t.is(adapter.deriveAddress(adapter.parseAccountKey(XPUB, 'mainnet'), 0).address, ADDR_0);
});

test('EIP-681 URIs: native, ERC-20 mainnet and Sepolia, missing testnet token', (t) => {
  t.is(adapter.paymentUri({ coin: 'eth', network: 'mainnet', address: ADDR_0, amountUnits: 10n ** 18n }), `ethereum:${ADDR_0}@1?value=1000000000000000000`);
  t.is(
    adapter.paymentUri({ coin: 'usdt_erc20', network: 'mainnet', address: ADDR_0, amountUnits: 25_500_000n }),
    `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${ADDR_0}&uint256=25500000`,
  );
  t.is(
    adapter.paymentUri({ coin: 'usdc_erc20', network: 'testnet', address: ADDR_0, amountUnits: 1n }),
    `ethereum:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238@11155111/transfer?address=${ADDR_0}&uint256=1`,
  );
  const error = t.throws(() => adapter.paymentUri({ coin: 'usdt_erc20', network: 'testnet', address: ADDR_0, amountUnits: 1n }));
  t.is((error as AppError).code, 'validation_error');
});
