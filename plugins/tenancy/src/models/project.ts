import { Model } from 'objection';
import type { ProjectKind } from '@gw/kernel';

export class Project extends Model {
  static override tableName = 'tenancy_projects';
  id!: string;
  operator_id!: string;
  name!: string;
  kind!: ProjectKind;
  status!: 'active' | 'suspended';
  webhook_url!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
