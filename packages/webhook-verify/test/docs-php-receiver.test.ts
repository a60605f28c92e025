/**
 * Runs the PHP receiver of docs/webhooks.md under PHP's built-in server (`php -S`, as the docs say;
 * Debian's php-cli, which .ci/run installs) and checks it over HTTP.
 */
import { createServer, type AddressInfo } from 'node:net';
import test from 'ava';
import { debianReceiverSuite } from './receiver-suite.js';

const PHP = '/usr/bin/php';

debianReceiverSuite(test, {
  language: 'php',
  command: PHP,
  debianPackage: 'php-cli',
  fileName: 'receiver.php',
  launch: async (dir, file) => {
    const port = await freePort();
    // TMPDIR: the receiver's deduplication markers (under sys_get_temp_dir()) go with the temp directory.
    return {
      command: PHP,
      args: ['-S', `127.0.0.1:${port}`, file],
      env: { TMPDIR: dir },
      port,
      ready: /Development Server \(http:\/\/127\.0\.0\.1:\d+\) started/,
    };
  },
});

/** A loopback port free now (`php -S` takes no port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
