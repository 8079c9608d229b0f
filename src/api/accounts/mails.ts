/** The texts of account mails (D206, D208, D209): plain text, one link each. */
import type { Mail } from '../../mail/mailer.js';

interface Recipient {
  email: string;
  username: string;
}

const SIGNATURE = '\n\n-- \nCharging Price Service';

export function confirmMail(u: Recipient, link: string): Mail {
  return {
    to: u.email,
    subject: 'Confirm your email address',
    text: `Hello ${u.username},\n\nplease confirm your email address by opening this link within 24 hours:\n\n${link}\n\nIf you did not sign up, ignore this mail.${SIGNATURE}`,
  };
}

export function resetMail(u: Recipient, link: string): Mail {
  return {
    to: u.email,
    subject: 'Reset your password',
    text: `Hello ${u.username},\n\nto set a new password, open this link within one hour:\n\n${link}\n\nIf you did not ask for it, ignore this mail: your password stays as it is.${SIGNATURE}`,
  };
}

export function signupAttemptMail(u: Recipient, confirmed: boolean, link: string): Mail {
  const way = confirmed
    ? `If it was you, log in with your password, or set a new one within one hour here:\n\n${link}`
    : `Your address is not confirmed yet. To confirm it, open this link within 24 hours:\n\n${link}`;
  return {
    to: u.email,
    subject: 'Someone tried to sign up with your address',
    text: `Hello ${u.username},\n\nsomeone tried to create an account with this address, which already has one. ${way}\n\nIf it was not you, ignore this mail: nothing was changed.${SIGNATURE}`,
  };
}
