/**
 * `@gw/cli` in the workspace: the partner commands, which the operator CLI (`pnpm gateway`) offers
 * in front of its own, and the standalone `gateway` executable's dispatcher. The installed package
 * exports none of it: it is the executable alone (dist/gateway.js).
 *
 * @packageDocumentation
 */
export {
  isPartnerCommand,
  PARTNER_COMMANDS,
  PARTNER_USAGE,
  partnerHelp,
  partnerHelpPointer,
  runPartnerCommand,
  type PartnerCommand,
  type PartnerContext,
  type PartnerIo,
} from './partner-cli.js';
export { GATEWAY_CLI_OVERVIEW, runGatewayCli } from './gateway-cli.js';
