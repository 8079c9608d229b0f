/** How the client reached the service (D193): the scheme it used, as the proxy in front says. */
/** The scheme the client used: `https` when `X-Forwarded-Proto` says so, else `http` (D193). */
export const schemeOf = (forwardedProto: string): 'http' | 'https' => (forwardedProto.trim().toLowerCase() === 'https' ? 'https' : 'http');
