// The database-free tests (`pnpm test:unit`): by convention every test under a package's `src/` is a
// unit test (no PostgreSQL, no node, no browser it must wait for); integration tests live under
// `test/` and `e2e/`. scripts/test-unit.ts runs these without any database in the environment, so a
// unit test that asks for one fails with "No test database server" instead of passing unnoticed.
import base from './ava.config.js';

export default {
  ...base,
  files: [
    'kernel/src/**/*.test.ts',
    'plugins/*/src/**/*.test.ts',
    'packages/*/src/**/*.test.ts',
    'chains/*/src/**/*.test.ts',
    'apps/*/src/**/*.test.ts',
    '!**/node_modules/**',
  ],
  timeout: '30s',
  // Many of these wait on timers and local sockets more than they compute.
  concurrency: 4,
};
