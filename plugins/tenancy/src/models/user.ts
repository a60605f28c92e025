import { Model } from 'objection';

/** `admin`: every dashboard action; `member`: read-only. */
export type UserRole = 'admin' | 'member';

/** The roles, in the order the CLI and dashboard offer them. */
export const USER_ROLES: readonly UserRole[] = ['admin', 'member'];

export class User extends Model {
  static override tableName = 'tenancy_users';
  id!: string;
  operator_id!: string;
  email!: string;
  status!: 'invited' | 'active' | 'disabled';
  role!: UserRole;
  invited_at!: Date;
}
