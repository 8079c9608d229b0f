/**
 * Settings the bundled HTTP core reads from the environment once, when its binary loads: this module
 * is imported before `uWebSockets.js` by every module that imports it (ES modules run their imports in
 * order), so the values are in place when the core's static initializers read them.
 *
 * `UWS_HTTP_MAX_HEADERS_SIZE` bounds the buffer where the core keeps a request head that arrived
 * over more than one read (D283). Its default, 4 KiB, is below what the service accepts in one read
 * (a head that arrives whole is parsed without that buffer), so a long head that TCP happened to
 * split was refused with 431 and the connection closed. 16 KiB holds the longest request line the
 * reference proxy passes (8 KiB, `large_client_header_buffers` in deploy/nginx.conf) with the
 * headers the service reads. An operator's own value is kept.
 */
export const DEFAULT_MAX_HEAD_BYTES = 16_384;

if (!process.env.UWS_HTTP_MAX_HEADERS_SIZE) process.env.UWS_HTTP_MAX_HEADERS_SIZE = String(DEFAULT_MAX_HEAD_BYTES);
