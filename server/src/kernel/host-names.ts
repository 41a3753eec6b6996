// How a server is named where people type one: the operator's blocks and allow list
// (federation/domain-blocks.ts) and a person's server mutes (moderation/server-mutes-repository.ts).

/**
 * A domain as blocks name it: a host name in lower case (its IDN in punycode), or a host:port for
 * one server on a port; a pasted address (https://host/path) gives its host. Null when it is
 * not one (an IP range, a wildcard, an empty line).
 */
export function normalizeDomain(raw: string): string | null {
  let text = raw.trim().toLowerCase();
  if (text === '' || text.length > 300) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  const host = url.host;
  if (!/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::[0-9]{1,5})?$/.test(host)) return null;
  return host;
}
