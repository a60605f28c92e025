import type { Notifications } from '@gw/kernel';
import { INVOICE_CHANGED_CHANNEL, type InvoiceService, type InvoiceView } from '@gw/plugin-invoices/contract';
import type { Logger } from 'pino';

/** Told the invoice as it is now, after each change of it (and after a gap in notifications). */
export type InvoiceWatcher = (invoice: InvoiceView) => void;

/**
 * Fans invoice changes out to the open checkout pages of this process. One subscription to
 * `invoices.changed` (the lifecycle notifies each changed invoice's id when its transaction
 * commits, on whichever instance wrote it) serves every page: a notification for a watched invoice
 * re-reads it once, however many pages watch it, and several notifications in the same tick are
 * read in one query. After a lost listening connection (`onGap`) every watched invoice is re-read,
 * so a change made meanwhile still arrives. The rows are the record; notifications only wake us.
 */
export class StatusHub {
  private readonly watchers = new Map<string, Set<InvoiceWatcher>>();
  private subscription: Promise<() => void> | undefined;
  private due = new Set<string>();
  private flushing = false;
  private readonly heartbeats = new Set<() => void>();
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { notifications: Notifications; invoicesService: InvoiceService; logger: Logger; heartbeatMs: number }) {}

  /** Follows an invoice until the returned function is called. Resolves once changes are being listened for. */
  async watch(invoiceId: string, watcher: InvoiceWatcher): Promise<() => void> {
    let set = this.watchers.get(invoiceId);
    if (!set) this.watchers.set(invoiceId, (set = new Set()));
    set.add(watcher);
    try {
      await this.subscribe();
    } catch (error) {
      this.unwatch(invoiceId, watcher);
      throw error;
    }
    return () => this.unwatch(invoiceId, watcher);
  }

  /** Calls `beat` every heartbeat interval (one timer for every stream of the process) until the returned function is called. */
  onHeartbeat(beat: () => void): () => void {
    this.heartbeats.add(beat);
    if (!this.heartbeatTimer) {
      this.heartbeatTimer = setInterval(() => {
        for (const b of [...this.heartbeats]) b();
      }, this.deps.heartbeatMs);
      this.heartbeatTimer.unref();
    }
    return () => {
      this.heartbeats.delete(beat);
      if (this.heartbeats.size === 0 && this.heartbeatTimer) {
        clearInterval(this.heartbeatTimer);
        this.heartbeatTimer = undefined;
      }
    };
  }

  /** Pages watching, over all invoices (metrics, the benchmark). */
  watcherCount(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** Stops listening (plugin stop). */
  async close(): Promise<void> {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.heartbeats.clear();
    this.watchers.clear();
    const unsubscribe = await this.subscription?.catch(() => undefined);
    this.subscription = undefined;
    unsubscribe?.();
  }

  private unwatch(invoiceId: string, watcher: InvoiceWatcher): void {
    const set = this.watchers.get(invoiceId);
    if (set?.delete(watcher) && set.size === 0) this.watchers.delete(invoiceId);
  }

  private subscribe(): Promise<() => void> {
    if (!this.subscription) {
      this.subscription = this.deps.notifications.subscribe(INVOICE_CHANGED_CHANNEL, {
        onNotification: (invoiceId) => {
          if (this.watchers.has(invoiceId)) this.schedule([invoiceId]);
        },
        onGap: () => this.schedule([...this.watchers.keys()]),
      });
      this.subscription.catch(() => (this.subscription = undefined));
    }
    return this.subscription;
  }

  private schedule(invoiceIds: readonly string[]): void {
    for (const id of invoiceIds) this.due.add(id);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    try {
      while (this.due.size > 0) {
        const ids = [...this.due];
        this.due = new Set();
        let invoices: Map<string, InvoiceView>;
        try {
          invoices = await this.deps.invoicesService.getMany(ids);
        } catch (error) {
          this.deps.logger.warn({ err: error, invoices: ids.length }, 'checkout: re-reading changed invoices failed; retrying in a second');
          const retry = setTimeout(() => this.schedule(ids.filter((id) => this.watchers.has(id))), 1000);
          retry.unref();
          continue;
        }
        for (const [id, invoice] of invoices) {
          for (const watcher of [...(this.watchers.get(id) ?? [])]) {
            try {
              watcher(invoice);
            } catch (error) {
              this.deps.logger.error({ err: error, invoice_id: id }, 'checkout: a status watcher failed');
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
