import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SignedFile } from '@gw/chain-api';
import { btcPlanOnDisk, MNEMONIC, SIGNER_BIN } from './testing.js';

/**
 * Runs the command on a pseudo-terminal (util-linux `script`), answering each prompt once it is
 * shown: what an operator at a terminal does. Resolves with the exit code and everything the
 * terminal showed.
 */
function onTerminal(args: readonly string[], answers: readonly { after: string; send: string }[]): Promise<{ code: number | null; screen: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, SIGNER_BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-f', '-c', command, '/dev/null'], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let next = 0;
    let shownUpTo = 0;
    const onOutput = (chunk: Buffer) => {
      screen += chunk.toString();
      const answer = answers[next];
      if (answer && screen.indexOf(answer.after, shownUpTo) >= 0) {
        shownUpTo = screen.length;
        next++;
        child.stdin.write(answer.send);
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 90_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
}

/** The plan every test here signs at the terminal. */
const planOnDisk = (passphrase?: string) => btcPlanOnDisk('gateway-signer-tty-', { index: 1, value: 60_000n }, passphrase);

test('at a terminal: the secret is asked without echo, the plan is shown, and "y" signs', async (t) => {
  const { planPath, signedPath, plan } = planOnDisk();
  const { code, screen } = await onTerminal(
    ['sign', planPath],
    [
      { after: '(not shown): ', send: `${MNEMONIC}\r` },
      { after: '[y/N] ', send: 'y\r' },
    ],
  );
  t.is(code, 0, screen);
  t.false(screen.includes('abandon'), 'the mnemonic typed is not echoed');
  t.regex(screen, /EXTERNAL/);
  t.is((JSON.parse(readFileSync(signedPath, 'utf8')) as SignedFile).plan_id.length > 0, true);
  t.regex(screen, new RegExp(`Signed transaction ${plan.unsigned.txid}`));
});

test('at a terminal: any answer but yes signs nothing', async (t) => {
  const { planPath, signedPath } = planOnDisk();
  const { code, screen } = await onTerminal(
    ['sign', planPath],
    [
      { after: '(not shown): ', send: `${MNEMONIC}\r` },
      { after: '[y/N] ', send: '\r' },
    ],
  );
  t.is(code, 1, screen);
  t.regex(screen, /refused \(not_confirmed\): Not confirmed/);
  t.false(existsSync(signedPath));
});

test('at a terminal: an answer typed ahead with the secret is discarded; only an answer to the question shown counts', async (t) => {
  const { planPath, signedPath } = planOnDisk();
  const { code, screen } = await onTerminal(
    ['sign', planPath],
    [
      // "y" and Enter typed right after the secret, before the plan was shown.
      { after: '(not shown): ', send: `${MNEMONIC}\ry\r` },
      { after: '[y/N] ', send: 'n\r' },
    ],
  );
  t.is(code, 1, screen);
  t.regex(screen, /Sign this transaction\? \[y\/N\] n/);
  t.regex(screen, /refused \(not_confirmed\): Not confirmed/);
  t.false(existsSync(signedPath));
});

test('at a terminal: --passphrase-prompt asks for the BIP 39 passphrase without echo', async (t) => {
  const { planPath, signedPath } = planOnDisk('correct horse');
  const keyPath = join(mkdtempSync(join(tmpdir(), 'gateway-signer-tty-')), 'key');
  writeFileSync(keyPath, MNEMONIC);
  const wrong = await onTerminal(['sign', planPath, '--key-file', keyPath, '--passphrase-prompt'], [{ after: 'passphrase (not shown): ', send: 'TREZOR\r' }]);
  t.is(wrong.code, 1, wrong.screen);
  t.regex(wrong.screen, /refused \(wrong_key\)/);
  t.false(wrong.screen.includes('TREZOR'), 'the passphrase is not echoed');
  const right = await onTerminal(
    ['sign', planPath, '--key-file', keyPath, '--passphrase-prompt'],
    [
      { after: 'passphrase (not shown): ', send: 'correct horse\r' },
      { after: '[y/N] ', send: 'yes\r' },
    ],
  );
  t.is(right.code, 0, right.screen);
  t.false(right.screen.includes('correct horse'));
  t.true(existsSync(signedPath));
});

test('at a terminal: the ownership challenge is shown and signed only after "y"', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-signer-tty-'));
  const challenge =
    'Gateway wallet ownership challenge: project 01JDX3V5Q8M2K7ZB9C4N6R1T0W, chain btc, key 1a2b3c4d5e6f7a8b, nonce 9c1e5f7a3b2d4c6e8f0a1b2c3d4e5f60, expires 2026-11-29T20:00:00.000Z';
  writeFileSync(join(dir, 'challenge'), challenge);
  writeFileSync(join(dir, 'key'), MNEMONIC);
  const args = ['challenge', '--chain', 'btc', '--network', 'regtest', '--message-file', join(dir, 'challenge'), '--key-file', join(dir, 'key')];
  const refused = await onTerminal(args, [{ after: '[y/N] ', send: '\r' }]);
  t.is(refused.code, 1, refused.screen);
  t.true(refused.screen.includes(challenge));
  t.regex(refused.screen, /refused \(not_confirmed\)/);
  const signed = await onTerminal(args, [{ after: '[y/N] ', send: 'y\r' }]);
  t.is(signed.code, 0, signed.screen);
  t.regex(signed.screen, /Signed the challenge with receive index 0/);
});
