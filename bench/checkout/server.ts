/**
 * The gateway side of the checkout benchmark, in its own process so its CPU can be measured alone:
 * the real kernel (role `gateway`, the composition's plugins, checkout included) on the given
 * database. Prints `{"url": ...}` on stdout when ready; stops on SIGTERM.
 */
import { serveBenchGateway } from './serve-gateway.js';
import { CHECKOUT_BENCH_OVERRIDES } from './config.js';

await serveBenchGateway(CHECKOUT_BENCH_OVERRIDES);
