import { reconnectDelayMs, type HeadListener, type ProviderEndpoint, type ReconnectBackoff, type Unsubscribe } from '@gw/chain-api';

/** Reconnect pauses: `reconnectDelayMs`. */
export interface HeadSubscriptionOptions extends ReconnectBackoff {
  /**
   * A connection with no message for this long is asked for `eth_blockNumber`; without an answer
   * within the same time again it is taken for dead (a half-open socket never closes by itself).
   */
  readonly idleMs?: number;
}

interface Message {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: { subscription?: string; result?: { number?: string; hash?: string } };
}

/**
 * `eth_subscribe("newHeads")` over the WebSocket of the first endpoint with a `wsUrl` (the next
 * one after a failure), with Node's global WebSocket client. Each pushed header goes to
 * `onHead`; each connect (subscription confirmed) and each drop or failed attempt to
 * `onConnection`. After a drop it reconnects by itself with doubling backoff (reset by a
 * connection that got its subscription). Returns the unsubscribe, which closes the socket and
 * stops reconnecting. With no endpoint offering a `wsUrl` it is never called (see `EvmWatcher`).
 */
export function subscribeNewHeads(endpoints: readonly ProviderEndpoint[], listener: HeadListener, options: HeadSubscriptionOptions = {}): Unsubscribe {
  const sockets = endpoints.filter((e): e is ProviderEndpoint & { wsUrl: string } => typeof e.wsUrl === 'string');
  if (sockets.length === 0) throw new Error('no provider endpoint has a wsUrl');
  const idleMs = options.idleMs ?? 30_000;
  let stopped = false;
  let attempt = 0;
  let index = 0;
  let socket: WebSocket | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = () => {
    if (stopped) return;
    const endpoint = sockets[index % sockets.length]!;
    let subscription: string | undefined;
    let down = false;
    let idle: NodeJS.Timeout | undefined;
    let probing = false;
    const ws = new (WebSocket as unknown as new (url: string, init?: { headers?: Record<string, string> }) => WebSocket)(
      endpoint.wsUrl,
      endpoint.headers ? { headers: { ...endpoint.headers } } : undefined,
    );
    socket = ws;
    const watchIdle = () => {
      clearTimeout(idle);
      probing = false;
      idle = setTimeout(function probe() {
        if (probing) return ws.close(4000, 'no answer');
        probing = true;
        try {
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }));
        } catch {
          // closing already
        }
        idle = setTimeout(probe, idleMs);
      }, idleMs);
      idle.unref();
    };
    const drop = (error: string) => {
      if (down) return;
      down = true;
      clearTimeout(idle);
      if (socket === ws) socket = undefined;
      try {
        ws.close();
      } catch {
        // already closed
      }
      if (stopped) return;
      listener.onConnection({ connected: false, provider: endpoint.name, error });
      index += 1;
      retry = setTimeout(connect, reconnectDelayMs(attempt, options));
      attempt += 1;
    };
    ws.addEventListener('open', () => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
      watchIdle();
    });
    ws.addEventListener('message', (event) => {
      watchIdle();
      let message: Message;
      try {
        message = JSON.parse(String(event.data)) as Message;
      } catch {
        return drop('not JSON on the WebSocket');
      }
      if (message.id === 1) {
        if (typeof message.result !== 'string') return drop(`eth_subscribe: ${message.error?.message ?? 'no subscription id'}`);
        subscription = message.result;
        attempt = 0;
        listener.onConnection({ connected: true, provider: endpoint.name });
        return;
      }
      if (message.method !== 'eth_subscription' || subscription === undefined || message.params?.subscription !== subscription) return;
      const head = message.params.result;
      if (typeof head?.number !== 'string' || typeof head.hash !== 'string') return;
      let height: number;
      try {
        height = Number(BigInt(head.number));
      } catch {
        return;
      }
      listener.onHead({ height, hash: head.hash });
    });
    ws.addEventListener('error', (event) => drop((event as { message?: string }).message ?? 'WebSocket error'));
    ws.addEventListener('close', (event) => drop(`WebSocket closed (${event.code}${event.reason ? ` ${event.reason}` : ''})`));
  };

  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    try {
      socket?.close();
    } catch {
      // already closed
    }
    socket = undefined;
  };
}
