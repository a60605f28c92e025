import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on a free loopback port: its base URL and a close that drops open connections first. */
export interface LoopbackServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, port chosen by the system. */
export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
