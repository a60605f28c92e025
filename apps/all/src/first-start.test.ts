import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { pino } from 'pino';
import { deliverFirstStartCredentials } from './first-start.js';

const SECRET = 'sk_sandbox_0123456789abcdef';

function capture() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }) };
}

test('on a terminal the secrets go to stderr only; the log says where, not what', (t) => {
  const { lines, logger } = capture();
  let written = '';
  const stderr = { isTTY: true, write: (text: string) => ((written += text), true) } as unknown as NodeJS.WriteStream;
  const dir = mkdtempSync(join(tmpdir(), 'gw-fs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const delivery = deliverFirstStartCredentials(`secret ${SECRET}\n`, { file: join(dir, 'c.txt'), logger, projectId: 'P1', stderr });
  t.deepEqual(delivery, { to: 'terminal' });
  t.true(written.includes(SECRET));
  t.false(lines.join('').includes(SECRET));
  t.regex(lines.join(''), /shown on the terminal/);
  t.throws(() => statSync(join(dir, 'c.txt')), { code: 'ENOENT' });
});

test('otherwise they go to a file readable by its owner alone, named in the log; an existing file is narrowed to 0600', (t) => {
  const { lines, logger } = capture();
  const stderr = { isTTY: false, write: () => t.fail('nothing on stderr') } as unknown as NodeJS.WriteStream;
  const dir = mkdtempSync(join(tmpdir(), 'gw-fs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let printed = '';
  const stdout = { write: (text: string) => ((printed += text), true) } as unknown as NodeJS.WritableStream;
  const file = join(dir, 'nested', 'c.txt');
  const delivery = deliverFirstStartCredentials(`secret ${SECRET}\n`, { file, logger, projectId: 'P1', stderr, stdout });
  t.deepEqual(delivery, { to: 'file', file });
  t.is(statSync(file).mode & 0o777, 0o600);
  t.is(readFileSync(file, 'utf8'), `secret ${SECRET}\n`);
  t.false(lines.join('').includes(SECRET));
  t.is(JSON.parse(lines[0]!).file, file);
  t.true(printed.includes(file));
  t.false(printed.includes(SECRET));

  const loose = join(dir, 'loose.txt');
  writeFileSync(loose, 'old');
  chmodSync(loose, 0o644);
  deliverFirstStartCredentials(`secret ${SECRET}\n`, { file: loose, logger, projectId: 'P1', stderr, stdout });
  t.is(statSync(loose).mode & 0o777, 0o600);
});
