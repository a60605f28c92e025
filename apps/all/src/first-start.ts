import { closeSync, fchmodSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Kernel } from '@gw/kernel';

type Logger = Kernel['logger'];

/** Where the first start's secrets went: the terminal, or a file only its owner can read. */
export type CredentialsDelivery = { readonly to: 'terminal' } | { readonly to: 'file'; readonly file: string };

/**
 * Hands the first start's secrets to the person starting the gateway without letting them reach
 * the logs: stdout carries the JSON log, which a log collector (journald, a container runtime)
 * keeps and ships. On a terminal (stderr is a TTY) they are written to stderr only. Otherwise they
 * go to `file`, created with mode 0600 (and set to 0600 if it existed), and the log names the file,
 * never a secret.
 */
export function deliverFirstStartCredentials(
  text: string,
  options: { file: string; logger: Logger; projectId: string; stderr?: NodeJS.WriteStream; stdout?: NodeJS.WritableStream },
): CredentialsDelivery {
  const stderr = options.stderr ?? process.stderr;
  if (stderr.isTTY) {
    stderr.write(text);
    options.logger.info(
      { project_id: options.projectId },
      'first start: a sandbox project was provisioned; its credentials were shown on the terminal (stderr), once',
    );
    return { to: 'terminal' };
  }
  const file = resolve(options.file);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  options.logger.warn(
    { project_id: options.projectId, file },
    `first start: a sandbox project was provisioned; its credentials are in ${file} (readable by its owner only). Store them and delete the file.`,
  );
  (options.stdout ?? process.stdout).write(`First start: a sandbox project was provisioned; its secrets are in ${file} (mode 0600), not in this output.\n`);
  return { to: 'file', file };
}
