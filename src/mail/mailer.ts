/**
 * Outgoing mail (D208), the one importer of nodemailer: to `SMTP_URL` when set, else as `.eml`
 * files in `DATA_DIR/outbox/` (the development default), each written under a temporary name
 * and renamed, so a reader never sees half a mail.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface MailerOptions {
  smtpUrl: string | null;
  from: string;
  /** Where the outbox directory is made when there is no SMTP server. */
  dataDir: string;
}

export class Mailer {
  private readonly transport: Transporter;
  /** The outbox directory, or null when mails go to SMTP. */
  readonly outbox: string | null;
  private sent = 0;

  constructor(private readonly o: MailerOptions) {
    this.outbox = o.smtpUrl === null ? path.join(o.dataDir, 'outbox') : null;
    this.transport =
      o.smtpUrl === null ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }) : nodemailer.createTransport(o.smtpUrl);
  }

  /** Where mails go, for the start log (never the SMTP password). */
  get where(): string {
    if (this.outbox !== null) return this.outbox;
    const u = new URL(this.o.smtpUrl!);
    return `${u.protocol}//${u.host}`;
  }

  async send(mail: Mail): Promise<void> {
    const info = (await this.transport.sendMail({ from: this.o.from, to: { name: '', address: mail.to }, subject: mail.subject, text: mail.text })) as { message?: Buffer };
    if (this.outbox === null) return;
    await fs.mkdir(this.outbox, { recursive: true, mode: 0o700 });
    // Time, then a sequence number: the names sort in the order the mails were sent.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(++this.sent).padStart(8, '0')}-${crypto.randomBytes(6).toString('hex')}`;
    const tmp = path.join(this.outbox, `.${name}.tmp`);
    await fs.writeFile(tmp, info.message ?? Buffer.alloc(0), { mode: 0o600 });
    await fs.rename(tmp, path.join(this.outbox, `${name}.eml`));
  }

  close(): void {
    this.transport.close();
  }
}
