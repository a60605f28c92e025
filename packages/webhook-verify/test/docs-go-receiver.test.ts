/**
 * Builds the Go receiver of docs/webhooks.md with Debian's golang-go (which .ci/run installs) and
 * checks it over HTTP. The build is offline (GOPROXY=off, GOFLAGS=-mod=mod, a fresh GOCACHE and
 * GOPATH in the temp directory): the docs promise the standard library only.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { debianReceiverSuite } from './receiver-suite.js';

const GO = '/usr/bin/go';

debianReceiverSuite(test, {
  language: 'go',
  command: GO,
  debianPackage: 'golang-go',
  fileName: 'main.go',
  launch: async (dir, file) => {
    const binary = join(dir, 'receiver');
    const env = { ...process.env, GOCACHE: join(dir, 'gocache'), GOPATH: join(dir, 'gopath'), GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' };
    await promisify(execFile)(GO, ['build', '-o', binary, file], { cwd: dir, env });
    return { command: binary, args: [] };
  },
});
