// Tests are TypeScript run through tsx on Node 24. Integration tests create their own database
// from the migrated template prepared by scripts/test.ts (see kernel/src/testing).
export default {
  files: [
    'kernel/**/*.test.ts',
    'plugins/*/src/**/*.test.ts',
    'plugins/*/test/**/*.test.ts',
    'packages/*/src/**/*.test.ts',
    'packages/*/test/**/*.test.ts',
    'chains/*/src/**/*.test.ts',
    'chains/*/test/**/*.test.ts',
    'apps/*/src/**/*.test.ts',
    'apps/*/test/**/*.test.ts',
    'e2e/**/*.test.ts',
    '!**/node_modules/**',
  ],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '120s',
  workerThreads: false,
  concurrency: 2,
};
