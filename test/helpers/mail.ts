/** Mails of the development outbox (DATA_DIR/outbox, D208), parsed as a client would read them. */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';

/** The links of the mails written to the outbox for `to`, oldest first. */
export async function mailLinks(dataDir: string, to: string): Promise<{ subject: string; link: string }[]> {
  const dir = path.join(dataDir, 'outbox');
  const out: { subject: string; link: string }[] = [];
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.eml')).sort() : []) {
    const m = await simpleParser(fs.readFileSync(path.join(dir, f)));
    const rcpt = Array.isArray(m.to) ? m.to[0] : m.to;
    if (rcpt?.value[0]?.address !== to) continue;
    const link = /(https?:\/\/\S+)/.exec(m.text ?? '')?.[1] ?? '';
    out.push({ subject: m.subject ?? '', link });
  }
  return out;
}

/** Waits for the `n`-th mail to `to` (mails are sent after the answer, D208). */
export async function nthMail(dataDir: string, to: string, n: number): Promise<{ subject: string; link: string }> {
  for (let i = 0; i < 200; i++) {
    const mails = await mailLinks(dataDir, to);
    if (mails.length >= n) return mails[n - 1];
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no mail ${n} to ${to}`);
}

