import test from 'ava';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import type { TreasuryConfig } from '../config.js';
import { HotGasWallet } from './hot-gas-wallet.js';

// The key file reader (readHotGasKey of @gw/chain-evm) is tested in chains/evm/src/hot-key-file.test.ts.

test('at start, a hot gas key that is not the network’s configured gas address stops the plugin', async (t) => {
  const key = Wallet.createRandom();
  const dir = await mkdtemp(join(tmpdir(), 'hot-gas-key-'));
  const file = join(dir, 'gas.key');
  await writeFile(file, key.privateKey);
  await chmod(file, 0o600);
  const wallet = (gas: string | undefined) =>
    new HotGasWallet({
      // checkKeys reads the configuration only; the pool is asked at each signature.
      addressPoolService: null as never,
      treasuryConfig: {
        networks: {
          eth: {
            anvil: {
              ...(gas ? { operatorAccounts: { gas: { address: gas, path: "m/44'/60'/0'/0/0" } } } : {}),
              hotGasWallet: { privateKeyFile: file, maxPerTransactionUnits: '1', maxPerDayUnits: '1' },
            },
          },
        },
      } as unknown as TreasuryConfig,
    });
  try {
    t.notThrows(() => wallet(key.address.toLowerCase()).checkKeys(() => {}));
    t.throws(() => wallet(Wallet.createRandom().address).checkKeys(() => {}), { message: /not the configured gas address/ });
    t.throws(() => wallet(undefined).checkKeys(() => {}), { message: /not the configured gas address/ });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
