/** Something a test starts in its `before` hook and stops in its `after.always` hook. */
export type Stoppable = { close(): Promise<unknown> } | { stop(): Promise<unknown> };

/**
 * Stops the parts a test started, one after the other in the order given (a gateway before the
 * nodes and servers it talks to). A part that is `undefined` never started (its `before` hook
 * failed first) and is skipped.
 */
export async function stopAll(...parts: readonly (Stoppable | undefined)[]): Promise<void> {
  for (const part of parts) {
    if (part === undefined) continue;
    await ('close' in part ? part.close() : part.stop());
  }
}
