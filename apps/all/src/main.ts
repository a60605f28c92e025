import { runProcess } from '@gw/app-gateway/run';

// `pnpm start`: the gateway (HTTP) and the worker (jobs) in one process.
await runProcess('all');
