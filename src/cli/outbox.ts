/**
 * The development outbox (D208): mails the service wrote to `DATA_DIR/outbox/` because no
 * `SMTP_URL` is set, newest last, decoded (the files are RFC 5322 messages, their text
 * quoted-printable), with the links a user would click.
 *
 *   npm run outbox [-- --to <address>] [--last <n>]
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { cliConfig, fail, parseCli } from './common.js';

const USAGE = `usage: outbox [--to <address>] [--last <n>]
prints the newest mails of DATA_DIR/outbox (default the last 5): date, recipient, subject and links`;

async function main(argv: string[]): Promise<void> {
  const { values } = parseCli(argv, { to: { type: 'string' }, last: { type: 'string' } }, USAGE);
  const last = Number(values.last ?? '5');
  if (!Number.isInteger(last) || last < 1) fail('--last must be a positive integer');
  const dir = path.join(cliConfig().dataDir, 'outbox');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).sort() : [];
  const mails = [];
  for (const f of files) {
    const m = await simpleParser(fs.readFileSync(path.join(dir, f)));
    const to = (Array.isArray(m.to) ? m.to[0] : m.to)?.text ?? '';
    if (values.to !== undefined && to.toLowerCase() !== values.to.trim().toLowerCase()) continue;
    mails.push({ date: m.date?.toISOString() ?? '', to, subject: m.subject ?? '', links: (m.text ?? '').match(/https?:\/\/\S+/g) ?? [] });
  }
  if (mails.length === 0) process.stdout.write(`no mails in ${dir}\n`);
  for (const m of mails.slice(-last)) process.stdout.write(`${m.date}  ${m.to}  ${m.subject}\n${m.links.map((l) => `  ${l}\n`).join('')}`);
}

void main(process.argv.slice(2));
