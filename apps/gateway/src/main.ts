import { runProcess } from './run-process.js';

// HTTP only; run `apps/worker` beside it (any number of each against one database).
await runProcess('gateway');
