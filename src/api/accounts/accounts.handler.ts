/**
 * The account routes (D200–D213) in the original web client's protocol: authentication, signup
 * and reset under the auth prefix (with their mail pages), and the user's own settings, products
 * and deletion behind a bearer access token. Errors in the client's shape (D201).
 */
import type { AppContext } from '../context.js';
import { ApiError } from '../jsonapi/errors.js';
import { defineQuery } from '../jsonapi/query.js';
import { defineQueryRoute } from '../contract.js';
import { json, noContent, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { AccountService, limit } from './account-service.js';
import { AUTHENTICATION_BODY, emailAuthenticationSchema, refreshAuthenticationSchema, resetSchema, signupSchema, triggerResetSchema } from './accounts.schema.js';
import { confirmedPage, invalidLinkPage, RESET_JS, resetPage, TOKEN_RE, tooManyPage } from './pages.js';
import { userRoutes } from './users.handler.js';

const typeOf = (body: unknown): unknown => (body as { data?: { type?: unknown } } | undefined)?.data?.type;

const tokenPair = (p: { access_token: string; refresh_token: string }): ApiResponse =>
  json(200, { data: { type: 'authentication_result', attributes: p } });

/**
 * The mail links' query: the token as sent ('' when absent); a token of the wrong form or unknown
 * answers the invalid-link page, not a 400 (D243).
 */
const TOKEN_QUERY = defineQuery({
  token: { params: [{ name: 'token', schema: { type: 'string' }, description: 'The token of the mail', required: true }], parse: (q) => q.get('token') ?? '' },
});

export function accountRoutes(ctx: AppContext): RouteDef[] {
  const deps = ctx.accounts;
  if (deps === undefined) return [];
  const svc = new AccountService(ctx, deps);
  const prefix = ctx.config.accounts.pathPrefix;
  const appUrl = ctx.config.accounts.appUrl;

  const authenticate = async (req: ApiRequest): Promise<ApiResponse> => {
    const t = typeOf(req.body);
    if (t === 'refresh_token_authentication') return tokenPair(await svc.refresh(req, refreshAuthenticationSchema(req.body).data.attributes.refresh_token));
    if (t === 'email_authentication') return tokenPair(await svc.login(req, emailAuthenticationSchema(req.body).data.attributes));
    throw new ApiError('BAD_REQUEST', 'data.type must be email_authentication or refresh_token_authentication', { source: { pointer: '/data/type' } });
  };

  const signup = async (req: ApiRequest): Promise<ApiResponse> => {
    await svc.signup(req, signupSchema(req.body).data.attributes);
    return noContent();
  };

  const triggerReset = async (req: ApiRequest): Promise<ApiResponse> => {
    await svc.triggerReset(req, triggerResetSchema(req.body).data.attributes.email);
    return noContent();
  };

  const confirm = async (req: ApiRequest, { token }: { token: string }): Promise<ApiResponse> => {
    if ((await deps.limits.pagesPerClient.take(svc.client(req))) > 0) return tooManyPage();
    return TOKEN_RE.test(token) && (await svc.confirm(token)) ? confirmedPage(appUrl) : invalidLinkPage(appUrl);
  };

  // D243: the form only for a token that can still be used; its look-up counts like a confirmation's.
  const resetForm = async (req: ApiRequest, { token }: { token: string }): Promise<ApiResponse> => {
    if ((await deps.limits.pagesPerClient.take(svc.client(req))) > 0) return tooManyPage();
    if (!TOKEN_RE.test(token) || !(await svc.resetUsable(token))) return invalidLinkPage(appUrl);
    return resetPage(token, `${prefix}/account/reset`, `${prefix}/account/reset.js`, appUrl);
  };

  const reset = async (req: ApiRequest): Promise<ApiResponse> => {
    limit(await deps.limits.pagesPerClient.take(svc.client(req)));
    const a = resetSchema(req.body).data.attributes;
    if (!TOKEN_RE.test(a.token) || !(await svc.reset(a.token, a.password))) {
      throw new ApiError('BAD_REQUEST', 'reset link invalid or expired', { source: { pointer: '/data/attributes/token' } });
    }
    return noContent();
  };

  const script = (): ApiResponse => ({ status: 200, body: RESET_JS, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600' } });

  const g = ['UserAccounts'] as const;
  const auth = { body: true, clientErrors: true } as const;
  const page = { groups: null, body: false, clientErrors: true, admission: 'ops' } as const;
  const at = (docPath: string) => ({ path: `${prefix}${docPath}`, docPath });
  return [
    { method: 'POST', ...at('/v1/authenticate'), answers: { status: 200, response: (s) => s.TokenPairDocument, errors: ['401'] }, groups: g, ...auth, bodySchema: AUTHENTICATION_BODY, handler: authenticate },
    { method: 'POST', ...at('/v1/users'), answers: { status: 204 }, groups: g, ...auth, bodySchema: signupSchema, handler: signup },
    { method: 'POST', ...at('/v1/trigger_reset_password'), answers: { status: 204 }, groups: g, ...auth, bodySchema: triggerResetSchema, handler: triggerReset },
    defineQueryRoute({ method: 'GET', ...at('/account/confirm'), answers: { status: 200, mediaType: 'text/html', headers: ['Content-Security-Policy', 'Referrer-Policy', 'Cache-Control'], errors: ['429'], pageErrors: ['400', '429'] }, ...page, query: TOKEN_QUERY, handler: confirm }),
    defineQueryRoute({ method: 'GET', ...at('/account/reset'), answers: { status: 200, mediaType: 'text/html', headers: ['Content-Security-Policy', 'Referrer-Policy', 'Cache-Control'], errors: ['429'], pageErrors: ['400', '429'] }, ...page, query: TOKEN_QUERY, handler: resetForm }),
    { method: 'GET', ...at('/account/reset.js'), answers: { status: 200, mediaType: 'text/javascript', headers: ['Cache-Control'] }, ...page, handler: script },
    { method: 'POST', ...at('/account/reset'), answers: { status: 204 }, groups: null, body: true, bodySchema: resetSchema, clientErrors: true, handler: reset },
    ...userRoutes(ctx, svc, prefix),
  ];
}
