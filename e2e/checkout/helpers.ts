import type { AnyPlugin } from '@gw/kernel';
import { freePort, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';

export { sandboxClient, type SandboxClient } from '@gw/plugin-sandbox/testing';

export const CHECKOUT_PLUGINS: readonly AnyPlugin[] = [...SANDBOX_PLUGINS, checkoutPlugin];

/** A sandbox gateway with the checkout plugin whose `checkout_url`s point at itself. */
export async function startCheckoutKernel(config: Record<string, unknown> = {}, database?: TestDatabase): Promise<TestKernel> {
  const port = await freePort();
  return startSandboxKernel({ 'http.port': port, 'http.baseUrl': `http://127.0.0.1:${port}`, ...config }, CHECKOUT_PLUGINS, database);
}

/** Reads server-sent events from a fetch response: `next()` resolves with the next event's parsed data. */
export function eventReader(response: Response): { next(timeoutMs?: number): Promise<any>; close(): Promise<void> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) return JSON.parse(data);
          continue;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no event in time');
        const chunk = await Promise.race([reader.read(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event in time')), left))]);
        if (chunk.done) throw new Error('stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    async close() {
      await reader.cancel().catch(() => undefined);
    },
  };
}
