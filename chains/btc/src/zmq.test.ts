/**
 * subscribeCoreZmq against a ZeroMQ publisher in this process (the `zeromq` package's PUB socket,
 * sending Core's three frames): a failed socket is rebuilt by itself, as the ChainWatcher
 * contract asks. The end-to-end push tests on a real node are in plugins/watchers/test.
 */
import test from 'ava';
import { Publisher } from 'zeromq';
import type { PushedHead } from '@gw/kernel';
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
    await until(() => heads.length >= 1, () => publish(a));
    await until(() => connections.filter((c) => c.connected).length >= 2, async () => undefined);
    t.like(connections, [{ connected: true }, { connected: false, error: 'ZMQ socket failed: listener broke' }, { connected: true }]);
    await until(() => heads.some((h) => h.hash === b), () => publish(b));
    t.deepEqual(heads, [{ hash: a }, { hash: b }], 'the rebuilt socket delivers the next block; the first is not announced twice');
  } finally {
    unsubscribe();
    publisher.close();
  }
});
