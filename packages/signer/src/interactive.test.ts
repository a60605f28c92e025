import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SignedFile } from '@gw/chain-api';
import { BTC } from './chains.js';
import { btcPlan, externalAddress, MNEMONIC, SIGNER_BIN } from './testing.js';

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

function planOnDisk(): { planPath: string; signedPath: string; txid: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-signer-tty-'));
  const { plan } = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [{ index: 1, value: 60_000n }],
    outputs: [{ external: externalAddress(BTC.networks['regtest']!.params), value: 59_000n }],
    fee: 1_000n,
  });
  const planPath = join(dir, 'plan.json');
  writeFileSync(planPath, JSON.stringify(plan));
  return { planPath, signedPath: join(dir, 'plan.signed.json'), txid: plan.unsigned.txid };
}

test('at a terminal: the secret is asked without echo, the plan is shown, and "y" signs', async (t) => {
  const { planPath, signedPath, txid } = planOnDisk();
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
  t.regex(screen, new RegExp(`Signed transaction ${txid}`));
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
