/** The texts of account mails (D206, D208, D209): plain text, one link each. */
import type { Mail } from '../../mail/mailer.js';

interface Recipient {
  email: string;
  username: string;
}

const SIGNATURE = '\n\n-- \nCharging Price Service';

/** To an address nobody has confirmed yet: no text the signup chose (its username) goes into it. */
export function confirmMail(u: Recipient, link: string): Mail {
  return {
    to: u.email,
    subject: 'Confirm your email address',
    text: `Hello,\n\nplease confirm your email address by opening this link within 24 hours:\n\n${link}\n\nIf you did not sign up, ignore this mail.${SIGNATURE}`,
  };
}

/** D249: the username only when the address is confirmed (else whoever signed up chose it). */
export function resetMail(u: Recipient & { confirmed_at: number | null }, link: string): Mail {
  const hello = u.confirmed_at === null ? 'Hello' : `Hello ${u.username}`;
  return {
    to: u.email,
    subject: 'Reset your password',
    text: `${hello},\n\nto set a new password, open this link within one hour:\n\n${link}\n\nIf you did not ask for it, ignore this mail: your password stays as it is.${SIGNATURE}`,
  };
}

export function signupAttemptMail(u: Recipient, confirmed: boolean, link: string): Mail {
  const way = confirmed
    ? `If it was you, log in with your password, or set a new one within one hour here:\n\n${link}`
    : `The address is not confirmed yet. If you signed up, set your password within one hour here; this also confirms the address:\n\n${link}`;
  return {
    to: u.email,
    subject: 'Someone tried to sign up with your address',
    text: `Hello,\n\nsomeone tried to create an account with this address, which already has one. ${way}\n\nIf it was not you, ignore this mail: nothing was changed.${SIGNATURE}`,
  };
}
