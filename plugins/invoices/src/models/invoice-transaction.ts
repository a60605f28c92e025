import type { ChainId, CoinId } from '@gw/kernel';
import { Model } from 'objection';

/** A transfer attributed to an invoice (observed on chain, or synthetic in the sandbox). */
export class InvoiceTransaction extends Model {
  static override tableName = 'invoices_transactions';
  id!: string;
  invoice_id!: string;
  project_id!: string;
  chain!: ChainId;
  coin!: CoinId;
  tx_hash!: string;
  output_index!: number;
  to_address!: string;
  amount_units!: string;
  block_height!: string | null;
  block_hash!: string | null;
  confirmations!: number;
  status!: 'pending' | 'confirmed' | 'reverted';
  synthetic!: boolean;
  detected_at!: Date;
  confirmed_at!: Date | null;
}
