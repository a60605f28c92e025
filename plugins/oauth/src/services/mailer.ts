import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';

/** Sends sign-in codes over SMTP (nodemailer); without SMTP in development, logs them instead. */
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

  close(): void {
    this.transport?.close();
  }
}
