// The one network call the session module makes (kept apart from client.ts, which imports the session).
import { getConfig } from '@/lib/config';

/**
 * Asks the server to end this token (DELETE /api/session) before the page
 * leaves. keepalive lets the request finish while the browser navigates away;
 * a failure changes nothing for the person, who is signed out locally anyway.
 */
export function revokeSession(token: string | null): void {
  if (!token) return;
  try {
    void fetch(`${getConfig().api.baseUrl}/api/session`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
      keepalive: true,
    }).catch(() => undefined);
  } catch {
    /* no fetch or no config: nothing to revoke with */
  }
}
