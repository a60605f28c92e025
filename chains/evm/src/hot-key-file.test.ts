import test from 'ava';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { readHotGasKey } from './hot-key-file.js';

/** A key file in a fresh directory, with the mode given. */
async function keyFile(text: string, mode: number): Promise<{ file: string; done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'hot-gas-key-'));
  const file = join(dir, 'gas.key');
  await writeFile(file, text);
  await chmod(file, mode);
  return { file, done: () => rm(dir, { recursive: true, force: true }) };
}

test('a malformed key file is refused without its content in the error', async (t) => {
  const secret = `0x${'ab'.repeat(31)}zz`;
  for (const text of [secret, `${secret.slice(2)}cd`, `mnemonic words ${secret}`, `0x${'00'.repeat(32)}`]) {
    const { file, done } = await keyFile(text, 0o600);
    try {
      const error = t.throws(() => readHotGasKey(file));
      t.regex(error!.message, /hot gas wallet key file/);
      t.false(error!.message.includes('abab'), error!.message);
      t.false(JSON.stringify(error).includes('abab'));
    } finally {
      await done();
    }
  }
});

test('a key file others may read is read, with a warning; a private one without', async (t) => {
  const key = Wallet.createRandom().privateKey;
  for (const [mode, warned] of [
    [0o644, true],
    [0o640, true],
    [0o600, false],
  ] as const) {
    const { file, done } = await keyFile(`  ${key}\n`, mode);
    try {
      const warnings: string[] = [];
      t.is(readHotGasKey(file, { warn: (m) => warnings.push(m) }).privateKey, key);
      t.is(warnings.length > 0, warned, mode.toString(8));
      t.false(warnings.join().includes(key.slice(2, 10)));
    } finally {
      await done();
    }
  }
});

test('a key file that cannot be read names the file and the reason only', (t) => {
  const error = t.throws(() => readHotGasKey('/nonexistent/gas.key'));
  t.regex(error!.message, /cannot be read \(ENOENT\)/);
});

test('the label names the wallet the key is for, in errors and warnings', async (t) => {
  const missing = t.throws(() => readHotGasKey('/nonexistent/x402.key', { label: 'x402 gas wallet' }));
  t.is(missing!.message, 'The x402 gas wallet key file /nonexistent/x402.key cannot be read (ENOENT).');
  const { file, done } = await keyFile(Wallet.createRandom().privateKey, 0o644);
  try {
    const warnings: string[] = [];
    readHotGasKey(file, { label: 'x402 gas wallet', warn: (m) => warnings.push(m) });
    t.deepEqual(warnings, [`The x402 gas wallet key file ${file} may be read by its group or others (chmod 600 it).`]);
  } finally {
    await done();
  }
});
