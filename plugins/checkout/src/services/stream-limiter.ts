/**
 * Caps the status streams (server-sent events and long polls) one client address holds open on
 * this instance, so a client that opens thousands cannot use up the instance's connections or
 * memory; other payers are unaffected. This is resource protection of one process, not state the
 * gateway's correctness depends on, so it is kept in memory: with several instances a client may
 * hold the limit on each.
 */
export class StreamLimiter {
  private readonly open = new Map<string, number>();

  constructor(private readonly perClient: number) {}

  /** Takes a slot for `client`; returns the function that gives it back, or undefined at the limit. */
  acquire(client: string): (() => void) | undefined {
    const held = this.open.get(client) ?? 0;
    if (held >= this.perClient) return undefined;
    this.open.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.open.get(client) ?? 1) - 1;
      if (now <= 0) this.open.delete(client);
      else this.open.set(client, now);
    };
  }

  /** Streams `client` holds open. */
  held(client: string): number {
    return this.open.get(client) ?? 0;
  }
}
