/**
 * The client address of a request (D207): the socket's peer, or behind a trusted proxy
 * (`TRUST_PROXY=on`) the last `X-Forwarded-For` entry, the one the nearest proxy appended.
 */
export function clientAddressOf(remote: string, forwardedFor: string, trustProxy: boolean): string {
  if (!trustProxy) return remote;
  const list = forwardedFor.split(',');
  const last = list[list.length - 1].trim();
  return last.length > 0 ? last : remote;
}

/** The scheme the client used: `https` when `X-Forwarded-Proto` says so, else `http` (D193). */
export const schemeOf = (forwardedProto: string): 'http' | 'https' => (forwardedProto.trim().toLowerCase() === 'https' ? 'https' : 'http');
