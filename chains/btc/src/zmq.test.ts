/**
 * subscribeCoreZmq against a ZeroMQ publisher in this process (the `zeromq` package's PUB socket,
 * sending Core's three frames): a failed socket is rebuilt by itself, as the ChainWatcher
 * contract asks. The end-to-end push tests on a real node are in plugins/watchers/test.
 */
import test from 'ava';
import { Publisher } from 'zeromq';
import type { PushedHead } from '@gw/chain-api';
import { subscribeCoreZmq } from './zmq.js';

const until = async (condition: () => boolean, act: () => Promise<void>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await act();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

test('a receive loop that fails: the drop is reported and a new socket is built after the backoff, which gets the next blocks', async (t) => {
  const publisher = new Publisher({ linger: 0 });
  await publisher.bind('tcp://127.0.0.1:*');
  let sequence = 0;
  const publish = async (hash: string) => {
    const number = Buffer.alloc(4);
    number.writeUInt32LE(sequence++);
    await publisher.send(['hashblock', Buffer.from(hash, 'hex'), number]);
  };
  const heads: PushedHead[] = [];
  const connections: { connected: boolean; error?: string }[] = [];
  let failed = false;
  const unsubscribe = subscribeCoreZmq(
    [{ name: 'core', url: 'http://127.0.0.1:1', zmqUrl: publisher.lastEndpoint! }],
    () => ({ txid: '', addresses: undefined }),
    {
      onHead: (head) => {
        heads.push(head);
        // A listener that throws fails the receive loop the way a socket error does.
        if (!failed) {
          failed = true;
          throw new Error('listener broke');
        }
      },
      onConnection: ({ connected, error }) => connections.push(error === undefined ? { connected } : { connected, error }),
    },
    { minBackoffMs: 50, maxBackoffMs: 200 },
  );
  try {
    const a = '11'.repeat(32);
    const b = '22'.repeat(32);
    // Published until received: a SUB socket's subscription reaches the publisher just after the handshake.
    await until(
      () => heads.length >= 1,
      () => publish(a),
    );
    await until(
      () => connections.filter((c) => c.connected).length >= 2,
      async () => undefined,
    );
    t.like(connections, [{ connected: true }, { connected: false, error: 'ZMQ socket failed: listener broke' }, { connected: true }]);
    await until(
      () => heads.some((h) => h.hash === b),
      () => publish(b),
    );
    t.deepEqual(heads, [{ hash: a }, { hash: b }], 'the rebuilt socket delivers the next block; the first is not announced twice');
  } finally {
    unsubscribe();
    publisher.close();
  }
});

test('a frame larger than the limit is dropped with its connection; the socket reconnects and delivers what follows (issue 33 finding 19)', async (t) => {
  const publisher = new Publisher({ linger: 0 });
  await publisher.bind('tcp://127.0.0.1:*');
  let sequence = 0;
  const publish = async (topic: string, body: Buffer) => {
    const number = Buffer.alloc(4);
    number.writeUInt32LE(sequence++);
    await publisher.send([topic, body, number]);
  };
  const heads: PushedHead[] = [];
  const decoded: number[] = [];
  const unsubscribe = subscribeCoreZmq(
    [{ name: 'core', url: 'http://127.0.0.1:1', zmqUrl: publisher.lastEndpoint! }],
    (raw) => {
      decoded.push(raw.length);
      return { txid: '', addresses: undefined };
    },
    { onHead: (head) => void heads.push(head), onTransaction: () => undefined, onConnection: () => undefined },
    { minBackoffMs: 50, maxBackoffMs: 200, maxMessageBytes: 1024 },
  );
  try {
    const a = '33'.repeat(32);
    const b = '44'.repeat(32);
    await until(
      () => heads.length >= 1,
      () => publish('hashblock', Buffer.from(a, 'hex')),
    );
    // One connection delivers in order: had the large frame been taken, it would come before b.
    await publish('rawtx', Buffer.alloc(4096, 1));
    await until(
      () => heads.some((h) => h.hash === b),
      () => publish('hashblock', Buffer.from(b, 'hex')),
    );
    await until(
      () => decoded.length >= 1,
      () => publish('rawtx', Buffer.alloc(512, 2)),
    );
    t.deepEqual([...new Set(decoded)], [512], 'only transactions within the limit were decoded');
    t.deepEqual(heads, [{ hash: a }, { hash: b }]);
  } finally {
    unsubscribe();
    publisher.close();
  }
});
