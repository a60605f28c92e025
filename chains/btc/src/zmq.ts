import { reconnectDelayMs, type HeadListener, type ProviderEndpoint, type PushedTransaction, type ReconnectBackoff, type Unsubscribe } from '@gw/chain-api';

export interface ZmqSubscriptionOptions extends ReconnectBackoff {
  /**
   * ZMTP heartbeat: a PING every this many milliseconds, and a connection whose peer sent nothing
   * for three times as long is taken for dead (a half-open TCP connection never closes by itself,
   * and a publisher sends nothing while no block comes). libzmq in the node answers by itself.
   */
  readonly heartbeatMs?: number;
  /** The largest message frame accepted (`MAX_MESSAGE_BYTES` unless a test sets a small one). */
  readonly maxMessageBytes?: number;
}

/**
 * The largest frame a node's publisher may send (issue 33 finding 19). The largest is a `rawtx`:
 * a transaction is bounded by the block weight limit (4,000,000 weight units, so at most 4 MB
 * serialized, witness included; Litecoin's limits are Bitcoin's). A larger frame is no
 * notification a node sends: libzmq drops it and the connection, then reconnects, instead of
 * buffering it whole (a misconfigured or hostile endpoint could otherwise make this process hold
 * any size).
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * How long after a connection drops libzmq has to announce its own reconnect. It does so at once
 * after an ordinary drop (a `connect:retry` within the millisecond); after a protocol error (a
 * frame over the limit) it closes the connection for good, so the endpoint is connected again here.
 */
const REVIVE_AFTER_MS = 1000;

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
 * `onConnection` is told when the first node's connection completes its handshake (connected),
 * when the last one drops (down), and at each failed attempt while none is up; libzmq reconnects
 * a dropped connection by itself with doubling backoff (`minBackoffMs` to `maxBackoffMs`). When
 * the socket itself fails (its receive loop throws, or a listener does), it is closed, the drop
 * reported, and a new socket built after `reconnectDelayMs` (the EVM subscription's backoff,
 * reset by a completed handshake). Core's notifier does not resend what was published while the
 * connection was down: the watcher's polling finds those blocks. Returns the unsubscribe, which
 * closes the socket and stops rebuilding it.
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
  const name = (address: string) => nameOf.get(address) ?? address;
  let stopped = false;
  let close: (() => void) | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** Sockets rebuilt since the last completed handshake (the backoff step). */
  let attempt = 0;
  /** The last block hash announced, across rebuilt sockets (two nodes announce the same block). */
  let lastHash = '';

  const open = async () => {
    // Loaded only when a provider asks for ZMQ: the native addon stays out of every other process.
    const { Subscriber } = await import('zeromq');
    if (stopped) return;
    const heartbeat = options.heartbeatMs ?? 30_000;
    const socket = new Subscriber({
      reconnectInterval: options.minBackoffMs ?? 500,
      reconnectMaxInterval: options.maxBackoffMs ?? 30_000,
      heartbeatInterval: heartbeat,
      heartbeatTimeout: heartbeat * 3,
      maxMessageSize: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
      linger: 0,
    });
    let closed = false;
    /** Per endpoint: the revival pending since its connection dropped (see REVIVE_AFTER_MS). */
    const revivals = new Map<string, NodeJS.Timeout>();
    close = () => {
      if (closed) return;
      closed = true;
      for (const timer of revivals.values()) clearTimeout(timer);
      revivals.clear();
      socket.close();
    };
    const reconnecting = ({ address }: { address: string }) => {
      clearTimeout(revivals.get(address));
      revivals.delete(address);
    };
    socket.events.on('connect:retry', reconnecting);
    socket.events.on('connect:delay', reconnecting);
    socket.events.on('connect', reconnecting);
    socket.events.on('disconnect', ({ address }) => {
      if (stopped || closed) return;
      clearTimeout(revivals.get(address));
      revivals.set(
        address,
        setTimeout(() => {
          revivals.delete(address);
          if (stopped || closed) return;
          try {
            socket.disconnect(address);
          } catch {
            // Already gone from the socket's endpoints: connecting again is all it takes.
          }
          socket.connect(address);
        }, REVIVE_AFTER_MS),
      );
    });
    const up = new Set<string>();
    // Every drop and failed attempt is reported, as the EVM subscription does; HeadPush's failure
    // log turns a streak of them into one warning and counts.
    socket.events.on('handshake', ({ address }) => {
      if (stopped || closed || up.has(address)) return;
      up.add(address);
      attempt = 0;
      if (up.size === 1) listener.onConnection({ connected: true, provider: name(address) });
    });
    socket.events.on('disconnect', ({ address }) => {
      if (stopped || closed || !up.delete(address)) return;
      if (up.size === 0) listener.onConnection({ connected: false, provider: name(address), error: 'ZMQ connection closed' });
    });
    // A node not listening (at start, or restarting): libzmq goes on retrying.
    socket.events.on('connect:retry', ({ address }) => {
      if (!stopped && !closed && up.size === 0) listener.onConnection({ connected: false, provider: name(address), error: 'ZMQ connection refused' });
    });
    for (const topic of TOPICS) socket.subscribe(topic);
    for (const endpoint of publishers) socket.connect(endpoint.zmqUrl);

    let failure = 'ZMQ socket closed';
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
      failure = `ZMQ socket failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    close();
    if (stopped) return;
    // The loop ended without an unsubscribe: a new socket after the backoff.
    listener.onConnection({ connected: false, provider: up.size > 0 ? name([...up][0]!) : publishers[0]!.name, error: failure });
    retry = setTimeout(() => void start(), reconnectDelayMs(attempt, options));
    attempt += 1;
  };

  const start = () =>
    open().catch((error: unknown) => {
      // The addon did not load (or the socket could not be built): nothing to retry.
      if (!stopped) listener.onConnection({ connected: false, provider: publishers[0]!.name, error: `ZMQ not available: ${(error as Error).message}` });
    });

  void start();
  return () => {
    stopped = true;
    clearTimeout(retry);
    close?.();
  };
}
