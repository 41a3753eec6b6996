import type { FastifyReply } from 'fastify';

/**
 * Answers that carry a person's data (their profile, e-mail, feed, likes) are
 * never kept by a browser's or a shared proxy's cache: a shared computer must
 * not show them to the next person. They also differ by token, hence Vary.
 * Called first thing by every authenticated route (people/auth-plugin.ts's
 * authenticate, the provider's userInfo), so refusals (401, 429) carry it too.
 * A call from there rather than a hook of its own on every request: a root
 * onRequest hook cost about 5 µs of a 50 µs API request (autocannon, GET /api/like).
 */
export function markPrivate(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
  // Kept beside what CORS may have put there (Origin).
  const vary = reply.getHeader('vary');
  reply.header('vary', vary ? `${String(vary)}, Authorization` : 'Authorization');
}
