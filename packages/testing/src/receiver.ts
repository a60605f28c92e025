import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface Reply {
  readonly status?: number;
  readonly body?: string;
  readonly delayMs?: number;
  /** Instead of an HTTP response: `reset` drops the connection, `garbage` writes bytes that are not HTTP and closes. */
  readonly misbehave?: 'reset' | 'garbage';
}

/** A partner's endpoint on a free local port: records every request, answers as `reply` says. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  reply: (request: ReceivedRequest) => Reply = () => ({ status: 200, body: '{"ok":true}' });
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        receiver!.requests.push(request);
        const reply = receiver!.reply(request);
        const send = () => {
          if (res.destroyed) return;
          if (reply.misbehave === 'reset') return void req.socket.resetAndDestroy();
          if (reply.misbehave === 'garbage') return void req.socket.end('SMTP READY\r\n\r\n\u0000\u0001not http at all');
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    server.keepAliveTimeout = 30_000;
    receiver = new Receiver(server, `http://127.0.0.1:${await listenOnLoopback(server)}`);
    return receiver;
  }

  /** Requests carrying this event id (header), in arrival order. */
  forEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['x-service-event-id'] === eventId);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}
