import { runProcess } from '@gw/app-gateway/run';
import { CLI_ACTOR } from '@gw/kernel';
import { deliverFirstStartCredentials } from './first-start.js';

// `pnpm start`: the gateway (HTTP) and the worker (jobs) in one process. On the first start of
// an install (no project yet) it provisions one sandbox project and hands out its credentials, so
// a new user can make a signed call at once: on a terminal to stderr, otherwise to a file readable
// by its owner alone that the log names (never to stdout, which carries the log).
await runProcess('all', async (kernel) => {
  if (!kernel.cradle.sandboxConfig.provisionOnFirstStart) return;
  const sandbox = await kernel.cradle.sandboxProjects.provisionIfEmpty(CLI_ACTOR);
  if (!sandbox) return;
  const text = [
    '',
    'First start: a sandbox project was provisioned. These secrets are shown once; store them now.',
    `  Base URL                     ${kernel.url}/api/v1/sandbox`,
    `  Project id (X-Project-Id)    ${sandbox.project.id}`,
    `  API secret (sk_sandbox_)     ${sandbox.api_key.api_secret}`,
    `  PAT (scope sandbox:simulate) ${sandbox.pat.token}`,
    `  Chains bound                 ${sandbox.wallets.map((w) => w.chain).join(', ')}`,
    'Sign requests as docs/sandbox.md shows, e.g. POST /api/v1/sandbox/invoices with',
    `  {"external_id":"order-1","coin":"eth","amount_crypto":"0.01"}`,
    '',
  ].join('\n');
  deliverFirstStartCredentials(text, { file: kernel.cradle.sandboxConfig.firstStartCredentialsFile, logger: kernel.logger, projectId: sandbox.project.id });
});
