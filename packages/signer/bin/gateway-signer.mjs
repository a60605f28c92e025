#!/usr/bin/env node
/**
 * The `gateway-signer` command: runs the TypeScript sources (src/main.ts) through tsx, as the
 * workspace's other commands do in development (tsx is resolved from the checkout). Plain
 * JavaScript, so it needs no compiler itself. Run it with Node 24 (node_modules/.bin/node in the
 * checkout).
 */
const { register } = await import('tsx/esm/api');
register();
await import(new URL('../src/main.ts', import.meta.url).href);
