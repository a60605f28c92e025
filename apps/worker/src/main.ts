import { runProcess } from '@gw/app-gateway/run';

// Jobs only (pg-boss workers, schedules, watchers); no HTTP.
await runProcess('worker');
