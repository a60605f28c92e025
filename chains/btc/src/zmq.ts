import type { HeadListener, ProviderEndpoint, PushedTransaction, Unsubscribe } from '@gw/kernel';

export interface ZmqSubscriptionOptions {
  /** First pause before reconnecting; doubles per failed attempt up to `maxBackoffMs` (libzmq's reconnect). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /**
   * ZMTP heartbeat: a PING every this many milliseconds, and a connection whose peer sent nothing
   * for three times as long is taken for dead (a half-open TCP connection never closes by itself,
   * and a publisher sends nothing while no block comes). libzmq in the node answers by itself.
   */
  readonly heartbeatMs?: number;
}

/** The ZeroMQ topics Bitcoin Core publishes that the watcher reads. */
const TOPICS = ['hashblock', 'rawtx'] as const;

/**
 * Bitcoin Core's ZMQ notifications (`-zmqpubhashblock`, `-zmqpubrawtx`) from every endpoint with
 * a `zmqUrl`, through one SUB socket connected to all of them (libzmq, the `zeromq` package's
 * prebuilt binary). Core sends each notification as three frames: the topic, the body (the block
 * hash in display order for `hashblock`, the serialized transaction for `rawtx`) and a 4-byte
 * little-endian sequence number.
 *
 * Each new block hash goes to `onHead` once (a block announced by two nodes counts once); each
 * transaction goes to `onTransaction` with the addresses `decodeTx` finds in its outputs.
 * `onConnection` is told when the first node's connection completes its handshake (connected)
 * and when the last one drops (down), with libzmq reconnecting by itself with doubling backoff.
 * Core's notifier does not resend what was published while the connection was down: the
 * watcher's polling finds those blocks. Returns the unsubscribe, which closes the socket.
 */
export function subscribeCoreZmq(
  endpoints: readonly ProviderEndpoint[],
  decodeTx: (raw: Buffer) => PushedTransaction,
  listener: HeadListener,
  options: ZmqSubscriptionOptions = {},
): Unsubscribe {
  const publishers = endpoints.filter((e): e is ProviderEndpoint & { zmqUrl: string } => typeof e.zmqUrl === 'string');
  if (publishers.length === 0) throw new Error('no provider endpoint has a zmqUrl');
  const nameOf = new Map(publishers.map((e) => [e.zmqUrl, e.name]));
  let stopped = false;
  let close: (() => void) | undefined;

  const start = async () => {
    // Loaded only when a provider asks for ZMQ: the native addon stays out of every other process.
    const { Subscriber } = await import('zeromq');
    if (stopped) return;
    const heartbeat = options.heartbeatMs ?? 30_000;
    const socket = new Subscriber({
      reconnectInterval: options.minBackoffMs ?? 500,
      reconnectMaxInterval: options.maxBackoffMs ?? 30_000,
      heartbeatInterval: heartbeat,
      heartbeatTimeout: heartbeat * 3,
      linger: 0,
    });
    close = () => socket.close();
    const up = new Set<string>();
    /** Whether "down" was reported since the last connect (libzmq retries quietly, and so does this). */
    let reportedDown = false;
    const name = (address: string) => nameOf.get(address) ?? address;
    const down = (address: string, error: string) => {
      if (reportedDown) return;
      reportedDown = true;
      listener.onConnection({ connected: false, provider: name(address), error });
    };
    socket.events.on('handshake', ({ address }) => {
      if (stopped || up.has(address)) return;
      up.add(address);
      reportedDown = false;
      if (up.size === 1) listener.onConnection({ connected: true, provider: name(address) });
    });
    socket.events.on('disconnect', ({ address }) => {
      if (stopped || !up.delete(address)) return;
      if (up.size === 0) down(address, 'ZMQ connection closed');
    });
    // A node not listening (at start, or restarting): reported once, libzmq goes on retrying.
    socket.events.on('connect:retry', ({ address }) => {
      if (!stopped && up.size === 0) down(address, 'ZMQ connection refused');
    });
    for (const topic of TOPICS) socket.subscribe(topic);
    for (const endpoint of publishers) socket.connect(endpoint.zmqUrl);

    let lastHash = '';
    try {
      for await (const [topic, body] of socket) {
        if (stopped) break;
        if (!topic || !body) continue;
        const kind = topic.toString('latin1');
        if (kind === 'hashblock' && body.length === 32) {
          const hash = body.toString('hex');
          if (hash === lastHash) continue;
          lastHash = hash;
          listener.onHead({ hash });
        } else if (kind === 'rawtx') {
          listener.onTransaction?.(decodeTx(body));
        }
      }
    } catch (error) {
      if (!stopped) listener.onConnection({ connected: false, provider: publishers[0]!.name, error: `ZMQ socket failed: ${(error as Error).message}` });
    }
  };

  start().catch((error: unknown) => {
    if (!stopped) listener.onConnection({ connected: false, provider: publishers[0]!.name, error: `ZMQ not available: ${(error as Error).message}` });
  });
  return () => {
    stopped = true;
    close?.();
  };
}
