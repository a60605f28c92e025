import type { BtcpayPolicy } from '../credentials/permissions.js';

/**
 * What granting a permission does on this gateway:
 * - `used`: Greenfield calls this gateway answers check it;
 * - `unused`: granted as asked (an application may insist on it), but no call here needs it, as
 *   the gateway has no such feature (Lightning, payment requests, reports, user profiles…);
 * - `refused`: never granted: administration of the server itself, which this gateway gives to no
 *   API key (BTCPay refuses these to a user who is not a server administrator).
 */
export type PermissionUse = 'used' | 'unused' | 'refused';

/** A permission as the approval page and the keys page describe it to a person. */
export interface PermissionDescription {
  /** A short name. */
  readonly title: string;
  /** What the application may then do, in this gateway's terms (a store is a project). */
  readonly description: string;
  readonly use: PermissionUse;
}

const unused = (what: string): string => `${what} This gateway has no such feature: the permission is granted but nothing uses it.`;
const refused = (what: string): string => `${what} This gateway gives no API key administration of the server.`;

/** Every BTCPay permission, described (a new policy in the credentials area must be described here). */
export const PERMISSION_DESCRIPTIONS: Readonly<Record<BtcpayPolicy, PermissionDescription>> = {
  unrestricted: {
    title: 'Unrestricted access',
    description: 'Everything this API allows on every project of your operator, including projects created later. Server administration stays excluded.',
    use: 'used',
  },
  'btcpay.store.canmodifystoresettings': {
    title: 'Manage the stores',
    description: 'Every store permission below: create, read and mark invoices, manage webhooks, refund invoices, read the store and its payment methods.',
    use: 'used',
  },
  'btcpay.store.canviewstoresettings': {
    title: 'View the stores',
    description: 'Read the store (project) and its payment methods (the coins it accepts), its invoices and its refunds.',
    use: 'used',
  },
  'btcpay.store.canviewinvoices': { title: 'View invoices', description: 'Read invoices (checkout sessions) and their payments.', use: 'used' },
  'btcpay.store.cancreateinvoice': { title: 'Create invoices', description: 'Create invoices (checkout sessions) for payers.', use: 'used' },
  'btcpay.store.canmodifyinvoices': {
    title: 'Modify invoices',
    description: 'Create and read invoices, and mark them invalid or settled.',
    use: 'used',
  },
  'btcpay.store.webhooks.canmodifywebhooks': {
    title: 'Manage webhooks',
    description: "Create, change and delete the store's Greenfield webhooks (notices of invoice events sent to the application).",
    use: 'used',
  },
  'btcpay.store.canmanagepullpayments': {
    title: 'Manage refunds',
    description: 'Refund invoices and read the refunds (BTCPay pull payments).',
    use: 'used',
  },
  'btcpay.store.cancreatepullpayments': { title: 'Create refunds', description: 'Refund invoices and read the refunds (BTCPay pull payments).', use: 'used' },
  'btcpay.store.cancreatenonapprovedpullpayments': {
    title: 'Create refunds to be claimed',
    description: 'Refund invoices: the payer claims the refund on its own page. Read the refunds.',
    use: 'used',
  },
  'btcpay.store.canviewpullpayments': { title: 'View refunds', description: 'Read the refunds of invoices (BTCPay pull payments).', use: 'used' },
  'btcpay.store.canarchivepullpayments': { title: 'Archive pull payments', description: unused('Archive pull payments.'), use: 'unused' },
  'btcpay.store.canmanagepayouts': { title: 'Manage payouts', description: unused('Approve and cancel the payouts of pull payments.'), use: 'unused' },
  'btcpay.store.canviewpayouts': { title: 'View payouts', description: unused('Read the payouts of pull payments.'), use: 'unused' },
  'btcpay.store.canviewreports': { title: 'View reports', description: unused("Read the store's reports."), use: 'unused' },
  'btcpay.store.canviewpaymentrequests': { title: 'View payment requests', description: unused('Read payment requests.'), use: 'unused' },
  'btcpay.store.canmodifypaymentrequests': { title: 'Manage payment requests', description: unused('Create and change payment requests.'), use: 'unused' },
  'btcpay.store.canuselightningnode': { title: "Use the store's Lightning node", description: unused('Use a Lightning node of the store.'), use: 'unused' },
  'btcpay.store.canviewlightninginvoice': { title: 'View Lightning invoices', description: unused('Read Lightning invoices of the store.'), use: 'unused' },
  'btcpay.store.cancreatelightninginvoice': { title: 'Create Lightning invoices', description: unused('Create Lightning invoices.'), use: 'unused' },
  'btcpay.store.canviewofferings': { title: 'View offerings', description: unused("Read the store's subscription offerings."), use: 'unused' },
  'btcpay.store.canmodifyofferings': { title: 'Manage offerings', description: unused("Change the store's subscription offerings."), use: 'unused' },
  'btcpay.user.canviewprofile': { title: 'View your profile', description: unused('Read your user profile.'), use: 'unused' },
  'btcpay.user.canmodifyprofile': { title: 'Manage your profile', description: unused('Change your user profile.'), use: 'unused' },
  'btcpay.user.canviewnotificationsforuser': { title: 'View your notifications', description: unused('Read your notifications.'), use: 'unused' },
  'btcpay.user.canmanagenotificationsforuser': {
    title: 'Manage your notifications',
    description: unused('Read and dismiss your notifications.'),
    use: 'unused',
  },
  'btcpay.user.candeleteuser': { title: 'Delete your user', description: unused('Delete your user account.'), use: 'unused' },
  'btcpay.server.canmodifyserversettings': { title: 'Manage the server', description: refused("Change the server's settings."), use: 'refused' },
  'btcpay.server.canuseinternallightningnode': {
    title: "Use the server's Lightning node",
    description: refused("Use the server's own Lightning node."),
    use: 'refused',
  },
  'btcpay.server.canviewlightninginvoiceinternalnode': {
    title: "View the server node's Lightning invoices",
    description: refused("Read Lightning invoices of the server's own node."),
    use: 'refused',
  },
  'btcpay.server.cancreatelightninginvoiceinternalnode': {
    title: "Create Lightning invoices on the server's node",
    description: refused("Create Lightning invoices on the server's own node."),
    use: 'refused',
  },
  'btcpay.server.canviewusers': { title: 'View users', description: refused('Read every user of the server.'), use: 'refused' },
  'btcpay.server.cancreateuser': { title: 'Create users', description: refused('Create users of the server.'), use: 'refused' },
  'btcpay.server.canmanageusers': { title: 'Manage users', description: refused('Create and delete users of the server and their API keys.'), use: 'refused' },
};
