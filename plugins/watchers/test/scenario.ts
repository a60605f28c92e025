import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import type { Receiver, TestProject } from '../../webhooks/test/helpers.js';

/** What a watcher end-to-end test reads once its `before` hook has run. */
export interface ScenarioContext {
  readonly gw: TestKernel;
  readonly project: TestProject;
  readonly receiver: Receiver;
}

/**
 * The steps the real-node end-to-end tests share, for one chain network: a scan pass (another
 * pass of the job loop may hold the lock: then again; a failed pass throws), an invoice created
 * over the signed REST API, an invoice read back, and the webhooks the receiver got for an
 * invoice (each with its signature and raw body). `context` is read at each call, so the steps can
 * be built before the test's `before` hook sets it up.
 */
export function watcherScenario(context: () => ScenarioContext, chain: string, network: string) {
  const scan = async () => {
    const { gw } = context();
    const target = gw.kernel.cradle.watchersRegistry.get(chain, network)!;
    for (;;) {
      const report = await gw.kernel.cradle.watchersScanner.pass(target);
      if (report.error) throw new Error(report.error);
      if (report.ran) return report;
    }
  };
  const uid = () => `order-${Math.random().toString(36).slice(2)}`;
  const invoice = async (body: Record<string, unknown>) => {
    const { gw, project } = context();
    const created = await signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body: { external_id: uid(), ...body } });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    return created.body;
  };
  const get = async (id: string) => {
    const { gw, project } = context();
    return (await signedFetch(gw.url, `/api/v1/invoices/${id}`, project)).body;
  };
  const eventsOf = (invoiceId: string) =>
    context()
      .receiver.requests.filter((r) => JSON.parse(r.body).data?.invoice_id === invoiceId)
      .map((r) => ({ ...JSON.parse(r.body), signature: String(r.headers['x-service-signature']), raw: r.body }));
  return { scan, uid, invoice, get, eventsOf };
}
