/** A transfer row the watchers removed or reverted, as their `returning` clauses select it. */
export interface RemovedTransfer {
  readonly invoice_id: string | null;
  readonly tx_hash: string;
  readonly output_index: number;
}

/** The transfers among `removed` that an invoice took, keyed as `InvoiceLifecycle.revertPayments` takes them. */
export function invoiceTransferKeys(removed: readonly RemovedTransfer[]): { invoiceId: string; txHash: string; outputIndex: number }[] {
  return removed.flatMap((t) => (t.invoice_id === null ? [] : [{ invoiceId: t.invoice_id, txHash: t.tx_hash, outputIndex: t.output_index }]));
}
