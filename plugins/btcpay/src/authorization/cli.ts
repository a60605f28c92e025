import { CLI_ACTOR, defineCommand, PAGE_FLAGS, pageFlags, ulidFlag, type CliCommand, type CliFlag } from '@gw/kernel';
import { tenancyErrors } from '@gw/plugin-tenancy/contract';

const operatorFlag: CliFlag = { type: 'string', description: 'Operator id or name (default: the only operator).' };

/** Operator CLI: the Greenfield API keys (the dashboard's BTCPay keys page). */
export const btcpayKeyCommands: CliCommand[] = [
  defineCommand(['btcpayApiKeys', 'tenancyOperators'], {
    noun: 'btcpay-key',
    verb: 'list',
    summary: "An operator's BTCPay Greenfield API keys, newest first: label, permissions, approving user, created, last used, revoked.",
    flags: { operator: operatorFlag, ...PAGE_FLAGS },
    run: async ({ flags, deps }) => {
      const operators = await deps.tenancyOperators.list();
      const given = flags['operator'] ? String(flags['operator']) : undefined;
      const operatorId = given ? (await deps.tenancyOperators.find(given)).id : operators.length === 1 ? operators[0]!.id : undefined;
      if (!operatorId)
        throw operators.length === 0 ? tenancyErrors.operator_not_found({ message: 'No operator exists yet.' }) : tenancyErrors.operator_required();
      const { limit, cursor } = pageFlags(flags);
      const keys = await deps.btcpayApiKeys.list(operatorId, { limit, ...(cursor ? { after: cursor } : {}) });
      return keys.length === limit ? { keys, next_cursor: keys[keys.length - 1]!.id } : { keys };
    },
  }),
  defineCommand(['btcpayApiKeys'], {
    noun: 'btcpay-key',
    verb: 'revoke',
    summary: 'Revoke a BTCPay Greenfield API key: the application using it loses access at once (audited as the operator).',
    flags: { key: ulidFlag('Key') },
    run: async ({ flags, deps }) => ({ key: await deps.btcpayApiKeys.revoke(String(flags['key']), CLI_ACTOR) }),
  }),
];
