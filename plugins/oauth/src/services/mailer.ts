import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';

/**
 * Sends sign-in codes over SMTP (nodemailer); without SMTP in development, logs them instead. Other
 * plugins send their plain messages through the same transport (`sendMessage`: the payouts plugin's
 * refund claim links), so an installation configures one SMTP server.
 */
export class CodeMailer {
  private readonly transport: Transporter | undefined;

  constructor(private readonly options: { smtpUrl: string | undefined; from: string; production: boolean; logger: Logger }) {
    this.transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : undefined;
  }

  /** Whether codes can reach anyone: SMTP is configured, or development logs them. */
  get available(): boolean {
    return this.transport !== undefined || !this.options.production;
  }

  /** Mails `code` to `to`; `purpose` is the sentence saying what the code signs in to. */
  async send(to: string, code: string, purpose: string): Promise<void> {
    if (!this.transport) {
      if (!this.options.production)
        this.options.logger.warn({ to, code }, 'oauth sign-in code (development: no plugins.oauth.smtp.url, so it is logged instead of mailed)');
      return;
    }
    await this.transport.sendMail({
      from: this.options.from,
      to,
      subject: `Your sign-in code: ${code}`,
      text: [`Your sign-in code is ${code}`, '', purpose, 'The code expires in a few minutes. If this was not you, ignore this message.'].join('\n'),
    });
  }

  /**
   * Mails a plain-text message. Without SMTP it is not sent: development logs it instead, production
   * logs that it could not be sent. Answers whether it went to the SMTP server.
   */
  async sendMessage(to: string, subject: string, text: string): Promise<boolean> {
    if (!this.transport) {
      if (this.options.production) this.options.logger.warn({ subject }, 'a message could not be mailed: plugins.oauth.smtp.url is not set');
      else this.options.logger.warn({ to, subject, text }, 'mail (development: no plugins.oauth.smtp.url, so it is logged instead of mailed)');
      return false;
    }
    await this.transport.sendMail({ from: this.options.from, to, subject, text });
    return true;
  }

  close(): void {
    this.transport?.close();
  }
}
