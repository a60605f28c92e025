import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call as the watcher sent it. */
export interface RpcCall {
  readonly method: string;
  readonly params: unknown[];
}

/** Changes one answer of the node before the proxy sends it back; may ask the node first (a lie that names a real block's hash). */
export type RpcRewrite = (call: RpcCall, result: any) => any;

/**
 * A JSON-RPC provider in front of a real node (anvil) that can misbehave on demand, for the fault
 * tests: `hang` holds every request without an answer; `rewrite` changes an answer before it goes
 * back (a lie: a block that vanishes, a height going backwards, a block flooded with transfers);
 * `hold` is awaited before a request is passed on (a pass caught in the middle). Batches and single
 * calls are both handled; everything else goes to the node unchanged.
 */
export class RpcProxy {
  hang = false;
  rewrite: RpcRewrite | undefined;
  hold: ((calls: readonly RpcCall[]) => Promise<void> | void) | undefined;
  /** Requests answered or held so far. */
  requests = 0;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    private readonly target: string,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<RpcProxy> {
    let proxy: RpcProxy | undefined;
    const server = createServer((req, res) => void proxy!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new RpcProxy(server, target, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.requests += 1;
    if (this.hang) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
      { id: number; method: string; params: unknown[] } | { id: number; method: string; params: unknown[] }[];
    const calls = Array.isArray(body) ? body : [body];
    try {
      await this.hold?.(calls);
      const upstream = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await upstream.json()) as { id: number; result?: unknown }[] | { id: number; result?: unknown };
      const answers = Array.isArray(answer) ? answer : [answer];
      if (this.rewrite) {
        const byId = new Map(calls.map((c) => [c.id, c]));
        for (const a of answers) {
          const call = byId.get(a.id);
          if (call && 'result' in a) a.result = await this.rewrite(call, a.result);
        }
      }
      if (res.destroyed) return;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(answer) ? answers : answers[0]));
    } catch {
      if (!res.destroyed) res.destroy();
    }
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The height a `eth_getBlockByNumber` call asks for, or undefined for a tag (`latest`, `finalized`). */
export function blockParam(call: RpcCall): number | undefined {
  if (call.method !== 'eth_getBlockByNumber') return undefined;
  const tag = call.params[0];
  return typeof tag === 'string' && tag.startsWith('0x') ? Number(BigInt(tag)) : undefined;
}
