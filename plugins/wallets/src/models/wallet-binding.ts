import { Model } from 'objection';
import type { ChainId, NetworkKind } from '@gw/kernel';

/** One registration of an account key for a (project, chain); current while `superseded_at` is null. */
export class WalletBinding extends Model {
  static override tableName = 'wallets_bindings';
  id!: string;
  project_id!: string;
  chain!: ChainId;
  network_kind!: NetworkKind;
  account_key_input!: string;
  account_key_canonical!: string;
  key_fingerprint!: string;
  state!: 'pending' | 'verified';
  challenge_message!: string;
  challenge_nonce!: string;
  challenge_expires_at!: Date;
  bound_at!: Date;
  verified_at!: Date | null;
  superseded_at!: Date | null;
  origin!: 'registered' | 'generated';
}
