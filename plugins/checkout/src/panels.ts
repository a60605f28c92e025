import { extensionPoint, html, type Actor, type ProjectKind, type SafeHtml } from '@gw/kernel';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { Logger } from 'pino';
import type { Locale } from './page/i18n.js';

/** What a panel of one invoice's checkout page is rendered from. */
export interface CheckoutPanelInput {
  readonly invoice: InvoiceView;
  readonly projectKind: ProjectKind;
  /** The page's language (one of `LOCALES`): a panel speaks all of them (`defineMessages`). */
  readonly locale: Locale;
  /** The payer status the page shows (`waiting`, `detected`, `paid`, …). */
  readonly status: string;
  /** The page's path (`/checkout/<token>`): a panel's form posts to `<base>/<panel id>/<action>?lang=<locale>`. */
  readonly base: string;
  /** The double-submit token every panel form carries as field `csrf` (`simulation-csrf.ts`). */
  readonly formToken: string;
  /** The error code of this panel's refused action, shown once. */
  readonly error: string | undefined;
}

/**
 * A section another plugin adds to the hosted checkout page (ADR 0011): the sandbox's simulation
 * buttons, the payouts plugin's link to a refund's claim page. The checkout renders it at the end of the page's main content and runs its actions
 * (POST `/checkout/:token/<id>/<action>`, CSRF-checked, then back to the page); it never imports
 * the plugin that contributes it.
 */
export interface CheckoutPanel {
  /** Path segment of the panel's actions (`simulate`). */
  readonly id: string;
  /** Whether an invoice of a project of this kind shows the panel and accepts its actions. */
  readonly shows: (projectKind: ProjectKind) => boolean;
  /** The panel's markup; a panel that reads what it shows (the payouts plugin's refund claims) renders asynchronously. */
  readonly render: (input: CheckoutPanelInput) => SafeHtml | Promise<SafeHtml>;
  /**
   * The actions that apply in a payer status: sent with every status update (`simulations`) so
   * the page's script enables exactly those buttons (`data-simulation="<action>"`).
   */
  readonly enabledActions: (status: string) => readonly string[];
  /** Every action's name (path segment); another name is 404. */
  readonly actions: readonly string[];
  /** Runs one of `actions` on the invoice. An AppError it throws comes back to the page as the panel's error code. */
  readonly act: (name: string, invoice: InvoiceView, actor: Actor) => Promise<void>;
}

/** The checkout page's panels, contributed by other plugins (`contribute(CHECKOUT_PANELS, …)`). */
export const CHECKOUT_PANELS = extensionPoint<CheckoutPanel>('checkout.panels');

/**
 * A panel without actions, on the page of every project kind, that reads what it shows (the payouts
 * plugin's refund claims, the sessions plugin's order): `read` fetches it, `render` shows it. A
 * failed read is logged (`failure`) and shows no panel rather than failing the payer's checkout page.
 */
export function readingPanel<T>(panel: {
  readonly id: string;
  readonly logger: Pick<Logger, 'warn'>;
  readonly failure: string;
  readonly read: (input: CheckoutPanelInput) => Promise<T>;
  readonly render: (found: T, input: CheckoutPanelInput) => SafeHtml;
}): CheckoutPanel {
  return {
    id: panel.id,
    shows: () => true,
    actions: [],
    enabledActions: () => [],
    render: async (input) => {
      let found: T;
      try {
        found = await panel.read(input);
      } catch (error) {
        panel.logger.warn({ err: error, invoice_id: input.invoice.id }, panel.failure);
        return html``;
      }
      return panel.render(found, input);
    },
    act: async () => {
      // No actions: the checkout answers 404 for any name before it gets here.
    },
  };
}
