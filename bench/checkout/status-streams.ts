import { Agent, request, type IncomingMessage } from 'node:http';

/** One open checkout page: the status stream its script opens, and when each status first arrived. */
export interface StatusStream {
  readonly invoiceId: string;
  readonly arrivals: Map<string, number>;
  response?: IncomingMessage;
}

/** Sockets for many long-lived streams from one load generator. */
export const streamAgent = new Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens a status stream (`{checkout page}/events`) and records when each status first arrives; resolves on the first event. */
export function openStatusStream(url: string, stream: StatusStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: streamAgent, headers: { Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${res.statusCode}`));
      stream.response = res;
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const status = (JSON.parse(data.slice(6)) as { status: string }).status;
          if (!stream.arrivals.has(status)) stream.arrivals.set(status, performance.now());
          resolve();
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a stream for each of `streams` at `urlOf(stream)`, `batch` at a time; the seconds it took. */
export async function openStatusStreams(
  streams: readonly StatusStream[],
  urlOf: (stream: StatusStream, index: number) => string,
  batch = 100,
): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < streams.length; i += batch) {
    await Promise.all(streams.slice(i, i + batch).map((stream, j) => openStatusStream(urlOf(stream, i + j), stream)));
  }
  return (performance.now() - start) / 1000;
}

/** The CPU a process used while nothing happened for `seconds`, as ms and as a share of one core. */
export async function idleCpu(pid: number, seconds: number, cpuMs: (pid: number) => number): Promise<{ cpuMs: number; wallMs: number; share: number }> {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const before = cpuMs(pid);
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const wallMs = performance.now() - start;
  const used = cpuMs(pid) - before;
  return { cpuMs: used, wallMs, share: used / wallMs };
}
