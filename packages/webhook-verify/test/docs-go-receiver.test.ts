/**
 * Builds the Go receiver of docs/webhooks.md with Debian's golang-go (which .ci/run installs) and
 * checks it over HTTP. The build is offline (GOPROXY=off, GOFLAGS=-mod=mod, a fresh GOCACHE and
 * GOPATH in the temp directory): the docs promise the standard library only.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { extractSnippet, readDocs } from './helpers.js';
import { receiverSuite } from './receiver-suite.js';

const GO = '/usr/bin/go';

test('golang-go is installed', (t) => {
  t.true(existsSync(GO), `${GO} is missing (Debian package golang-go; .ci/run installs it)`);
});

receiverSuite(
  test,
  'go',
  GO,
  'main.go',
  () => extractSnippet(readDocs(), 'go'),
  async (dir, file) => {
    const binary = join(dir, 'receiver');
    const env = { ...process.env, GOCACHE: join(dir, 'gocache'), GOPATH: join(dir, 'gopath'), GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' };
    await promisify(execFile)(GO, ['build', '-o', binary, file], { cwd: dir, env });
    return { command: binary, args: [] };
  },
);
