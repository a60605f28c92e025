import type { ExecutionContext } from 'ava';
import { waitFor } from '@gw/kernel/testing';
import type { TcpProxy } from './tcp-proxy.js';

/** A push metric of the network under test: connected (0 or 1), heads pushed, reconnects. */
export type PushMetric = (name: 'pushConnected' | 'pushHeads' | 'pushReconnects') => Promise<number>;

/**
 * Once push is connected through `proxy`: pays once, then once while the proxy has cut the push
 * connection (detected by polling, nothing pushed), then once after the subscription came back by
 * itself within `reconnectMs`. Answers the three payments in that order.
 */
export async function payAcrossPushOutage<P>(
  t: ExecutionContext,
  proxy: TcpProxy,
  metric: PushMetric,
  pay: () => Promise<P>,
  reconnectMs: number,
): Promise<[P, P, P]> {
  await waitFor(async () => (await metric('pushConnected')) === 1, 20_000);
  const before = await pay();

  await proxy.close();
  await waitFor(async () => (await metric('pushConnected')) === 0, 20_000);
  const headsWhileDown = await metric('pushHeads');
  const during = await pay();
  t.is(await metric('pushConnected'), 0, 'detected while the push connection was down: by polling');
  t.is(await metric('pushHeads'), headsWhileDown, 'no head was pushed while down');

  await proxy.open();
  await waitFor(async () => (await metric('pushConnected')) === 1, reconnectMs);
  t.true((await metric('pushReconnects')) >= 1);
  return [before, during, await pay()];
}
