import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { SignerError } from './signer-error.js';

/** Where the signer reads and writes: the process's streams, or a test's. */
export interface SignerIo {
  readonly stdin: Readable & { readonly isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  readonly stdout: Writable;
  /** Everything for the operator's eyes (the review, prompts, refusals). */
  readonly stderr: Writable;
}

/** Reads standard input to its end (a secret or a message piped in). */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Asks for a secret on the terminal without echoing it (raw mode: nothing typed is shown, not even
 * stars). Enter ends it, Backspace and Ctrl-U edit, Ctrl-C or Ctrl-D abort.
 */
export function promptHidden(io: SignerIo, question: string): Promise<string> {
  const { stdin } = io;
  if (!stdin.isTTY || !stdin.setRawMode) return Promise.reject(new SignerError('secret_unreadable', 'Standard input is not a terminal to ask on.'));
  // Echo is off before the question shows, so nothing typed at once is echoed.
  stdin.setRawMode(true);
  io.stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      io.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (let i = 0; i < chunk.length; i++) {
        const ch = chunk[i]!;
        if (ch === '\r' || ch === '\n') {
          finish();
          // What was typed after Enter (the confirmation, when typed ahead) is read next.
          const rest = chunk.slice(ch === '\r' && chunk[i + 1] === '\n' ? i + 2 : i + 1);
          if (rest.length > 0) stdin.unshift(rest, 'utf8');
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(new SignerError('not_confirmed', 'Interrupted; nothing was signed.'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = '';
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Asks a yes/no question on the terminal; only `y` or `yes` is yes. */
export async function confirm(io: SignerIo, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    io.stderr.write(question);
    const answer = await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return /^\s*y(?:es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
