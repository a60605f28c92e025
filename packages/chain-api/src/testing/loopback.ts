import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** For tests: starts `server` (HTTP or HTTPS) listening on a free port of 127.0.0.1 and answers the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** For tests: closes `server` now, dropping its open (keep-alive) connections instead of waiting for them. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
