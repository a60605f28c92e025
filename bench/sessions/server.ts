/**
 * The gateway side of the sessions benchmark, in its own process so its CPU can be measured alone
 * (as bench/checkout/server.ts, with the sessions benchmark's configuration).
 */
import { serveBenchGateway } from '../checkout/serve-gateway.js';
import { SESSIONS_BENCH_OVERRIDES } from './config.js';

await serveBenchGateway(SESSIONS_BENCH_OVERRIDES);
