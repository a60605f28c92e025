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
