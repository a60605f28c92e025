/** Polls `condition` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(condition: () => Promise<T | undefined | false | null>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until at least `seconds` remain in the current fixed rate-limit window (windows are
 * aligned to the Unix epoch), so the hits a test counts all fall into one window.
 */
export async function roomInRateWindow(seconds: number, windowSeconds = 60): Promise<void> {
  const left = windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}
