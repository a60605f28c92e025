import { coreErrors } from '@gw/kernel';
import type { DashboardRequest } from '@gw/plugin-dashboard/contract';

/** A query parameter of a treasury page that must be present and short, as the dashboard's error page tells. */
export function queryText(req: Pick<DashboardRequest<unknown>, 'query'>, name: string, max: number): string {
  const value = req.query.get(name)?.trim() ?? '';
  if (value === '' || value.length > max)
    throw coreErrors.validation_error({ message: `${name} is required (at most ${max} characters).`, details: { field: `query.${name}` } });
  return value;
}
