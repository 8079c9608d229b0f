/**
 * The pages a mail links to (D209): the confirmation page and the new-password page with its
 * script. No inline script (the CSP forbids it), requests to this origin only, never cached,
 * no referrer (the token is in the page's address).
 */
import type { ApiResponse } from '../types.js';

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** Tokens are 32 bytes in base64url: anything else is no token (and never reaches the page). */
export const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

function page(status: number, title: string, body: string): ApiResponse {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}
input{display:block;width:100%;padding:.5rem;margin:.25rem 0 1rem;box-sizing:border-box}button{padding:.5rem 1rem}
#msg{margin-top:1rem}</style></head>
<body><h1>${title}</h1>
${body}
</body></html>
`;
  return { status, body: html, headers: { ...HEADERS } };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** D243: a way back to the web client (APP_URL), or words saying where to go. */
const backToApp = (appUrl: string | null): string =>
  appUrl === null ? '<p>Return to the app to continue.</p>' : `<p><a id="app" href="${escapeHtml(appUrl)}">Open the app</a></p>`;

export const confirmedPage = (appUrl: string | null): ApiResponse =>
  page(200, 'Address confirmed', `<p>Your email address is confirmed. You can now log in.</p>\n${backToApp(appUrl)}`);

export const tooManyPage = (): ApiResponse => {
  const r = page(429, 'Too many attempts', '<p>Too many attempts from this address. Try again in a few minutes.</p>');
  r.headers!['Retry-After'] = '900';
  return r;
};

export const invalidLinkPage = (appUrl: string | null): ApiResponse =>
  page(
    400,
    'Link invalid or expired',
    `<p>This link is invalid, was used already or has expired: each link in our mails works once, a confirmation link for 24 hours and a password link for 1 hour.</p>
<p>To get a new one, open the app, choose <strong>Log in</strong>, then <strong>Forgot password?</strong> and enter your address: setting a new password also confirms your address.</p>
${backToApp(appUrl)}`,
  );

/** The new-password form; `action` is the path `POST …/account/reset` is served at. */
export function resetPage(token: string, action: string, script: string, appUrl: string | null): ApiResponse {
  return page(
    200,
    'Set a new password',
    `<form id="reset" data-token="${token}" data-action="${action}">
<label>New password <input id="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required></label>
<label>Repeat it <input id="again" type="password" autocomplete="new-password" minlength="8" maxlength="128" required></label>
<button type="submit">Set password</button>
</form>
<p id="msg" role="status"></p>
<div id="done" hidden>${backToApp(appUrl)}</div>
<script src="${script}"></script>`,
  );
}

/** The page's script: posts the new password with the token as JSON, shows the answer. */
export const RESET_JS = `'use strict';
(function () {
  var form = document.getElementById('reset');
  var msg = document.getElementById('msg');
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var pw = document.getElementById('password').value;
    if (pw !== document.getElementById('again').value) { msg.textContent = 'The two passwords differ.'; return; }
    var body = { data: { type: 'password_reset', attributes: { token: form.dataset.token, password: pw } } };
    fetch(form.dataset.action, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringify(body) })
      .then(function (r) {
        if (r.status === 204) { form.remove(); msg.textContent = 'Your password is set. You can now log in.'; document.getElementById('done').hidden = false; return; }
        return r.json().then(function (d) { msg.textContent = (d.errors && d.errors[0] && d.errors[0].message) || 'The password was not set.'; });
      })
      .catch(function () { msg.textContent = 'The service cannot be reached; try again.'; });
  });
})();
`;
