/**
 * Host names and origins as the WHATWG URL parser spells them, for the Host and Origin checks of
 * `serveHttp`: one spelling per address (`[0:0:0:0:0:0:0:1]` is `[::1]`, `127.1` is
 * `127.0.0.1`, `Example.COM` is `example.com`), so a check is a lookup, however a client wrote it.
 * It loads nothing of the MCP SDK, so the bin's command line reads with it too.
 */
import { isIP } from 'node:net';

/**
 * The names of this machine's loopback a Host header may always give: `localhost`, `127.0.0.1`,
 * `[::1]` and `[::ffff:7f00:1]` (the IPv4-mapped `::ffff:127.0.0.1`). A DNS-rebinding attack can
 * only send a name its author controls, never one of these.
 */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '[::ffff:7f00:1]'];

/**
 * `text` (a name, an IPv4 address, or an IPv6 address with or without brackets) as a URL's
 * `hostname` spells it; `undefined` when it is none of these (it has a scheme, a port, a path, a
 * space).
 */
export function hostName(text: string): string | undefined {
  const trimmed = text.trim();
  const bracketed = isIP(trimmed) === 6 ? `[${trimmed}]` : trimmed;
  if (!/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)$/u.test(bracketed)) return undefined;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * `text` as a URL's `origin` spells it (`https://app.example:8443`, no default port, no trailing
 * slash); `undefined` when it is not an http or https origin with nothing after its port.
 */
export function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
  return url.origin;
}

/** Why a host name was refused, for the messages of serveHttp and the bin. */
export const NOT_A_HOST = 'is not a host name (a name or an IP address, without a scheme or a port)';
/** Why an origin was refused. */
export const NOT_AN_ORIGIN = 'is not an origin (scheme://host[:port], such as https://app.example)';

/** Each of `entries` through `parse`; a wrong one throws `fail(message)`, naming `label`. */
export function parseAll(entries: readonly string[], parse: (text: string) => string | undefined, label: string, why: string, fail: (message: string) => Error): string[] {
  return entries.map((entry) => {
    const parsed = parse(entry);
    if (parsed === undefined) throw fail(`${label}: "${entry}" ${why}.`);
    return parsed;
  });
}
