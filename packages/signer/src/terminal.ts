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
 * How long keys pressed before a question is shown are read and thrown away. The terminal's input
 * queue is read in raw mode, where every key arrives as soon as it is pressed; what is already
 * queued arrives within a turn of the event loop, long before this.
 */
const DISCARD_MS = 50;

/**
 * Reads one line at the terminal in raw mode, after discarding everything typed before the
 * question was shown (an answer typed ahead, a line ending after the secret, keys pressed while
 * the plan was checked): the operator answers what they see, not what they typed before. `echo`
 * shows the keys typed (a yes/no answer); a secret is not echoed, not even as stars. Enter ends
 * the line, Backspace and Ctrl-U edit, Ctrl-C or Ctrl-D abort (`not_confirmed`).
 */
async function readLineAtTerminal(io: SignerIo, question: string, echo: boolean): Promise<string> {
  const { stdin } = io;
  if (!stdin.isTTY || !stdin.setRawMode) throw new SignerError('secret_unreadable', 'Standard input is not a terminal to ask on.');
  // Raw mode before anything: no key is echoed by the terminal, and every key is delivered now.
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  while (stdin.read() !== null) {
    // What the stream already holds was typed before the question.
  }
  const discard = (): void => undefined;
  stdin.on('data', discard);
  stdin.resume();
  await new Promise((resolve) => setTimeout(resolve, DISCARD_MS));
  stdin.off('data', discard);
  io.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      io.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          // Whatever follows Enter in the same read was typed ahead: dropped with the rest.
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(new SignerError('not_confirmed', 'Interrupted; nothing was signed.'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') {
          if (value.length > 0 && echo) io.stderr.write('\b \b');
          value = value.slice(0, -1);
        } else if (ch === '\u0015') {
          if (echo) io.stderr.write('\b \b'.repeat(value.length));
          value = '';
        } else if (ch >= ' ' && ch !== '\u007f') {
          value += ch;
          if (echo && /^[\x20-\x7e]$/.test(ch)) io.stderr.write(ch);
        }
      }
    };
    stdin.on('data', onData);
  });
}

/** Asks for a secret (mnemonic, key, passphrase) on the terminal without echoing it; keys typed before the question are discarded. */
export function promptHidden(io: SignerIo, question: string): Promise<string> {
  return readLineAtTerminal(io, question, false);
}

/** Asks a yes/no question on the terminal, after discarding anything typed before it; only `y` or `yes` is yes. */
export async function confirm(io: SignerIo, question: string): Promise<boolean> {
  return /^\s*y(?:es)?\s*$/i.test(await readLineAtTerminal(io, question, true));
}
