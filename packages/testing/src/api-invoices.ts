import { signedFetch, waitFor } from '@gw/kernel/testing';

/** A project's credentials for signed requests to the API. */
export interface ApiCredentials {
  readonly projectId: string;
  readonly secret: string;
}

/**
 * Creates an invoice with `body` over the API of the gateway at `url` and returns it. Right after a
 * wallet is verified the project's pool is still filling and creation is refused, so it asks again
 * until the answer is 201 or `timeoutMs` has passed.
 */
export function createInvoiceOncePoolFills(url: string, credentials: ApiCredentials, body: Record<string, unknown>, timeoutMs: number): Promise<any> {
  return waitFor(
    async () => {
      const response = await signedFetch(url, '/api/v1/invoices', { ...credentials, method: 'POST', body });
      return response.status === 201 ? response.body : undefined;
    },
    timeoutMs,
    'invoice creation',
  );
}

/** Waits until the API of the gateway at `url` shows the invoice `invoiceId` paid, and returns it. */
export function waitForPaidInvoice(url: string, credentials: ApiCredentials, invoiceId: string, timeoutMs: number): Promise<any> {
  return waitFor(
    async () => {
      const response = await signedFetch(url, `/api/v1/invoices/${invoiceId}`, { ...credentials, method: 'GET' });
      return response.body.status === 'paid' ? response.body : undefined;
    },
    timeoutMs,
    'the invoice to be paid',
  );
}
