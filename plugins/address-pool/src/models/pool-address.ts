import { Model } from 'objection';
import type { ChainId } from '@gw/kernel';

/** One pre-derived deposit address of a wallet binding. */
export class PoolAddress extends Model {
  static override tableName = 'address_pool_addresses';
  id!: string;
  project_id!: string;
  chain!: ChainId;
  wallet_id!: string;
  derivation_index!: number;
  address!: string;
  derivation_path!: string;
  state!: 'available' | 'allocated' | 'cooldown';
  cooldown_until!: Date | null;
  activated!: boolean;
  activated_at!: Date | null;
  active_allocations!: number;
  allocation_count!: number;
  last_invoice_ref!: string | null;
  allocated_at!: Date | null;
  released_at!: Date | null;
  paid_at!: Date | null;
  created_at!: Date;
}
