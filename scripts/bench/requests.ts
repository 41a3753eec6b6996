// What the bench sends: the request shapes of the write and feed cases, shared by scripts/bench.ts
// and its --baseline mode (scripts/bench/baseline.ts), so both trees get exactly the same load.
import type { AutocannonRequest } from 'autocannon';

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const cycle = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

export function get(path: string, token: string): AutocannonRequest {
  return { method: 'GET', path, headers: { authorization: `Bearer ${token}` } };
}

export function likeUnlike(token: string, nextPost: () => number): AutocannonRequest[] {
  const auth = `Bearer ${token}`;
  return [
    {
      method: 'POST',
      path: '/api/like',
      headers: { authorization: auth, 'content-type': 'application/json' },
      setupRequest: (req, ctx) => {
        const id = nextPost();
        ctx.postId = id;
        return { ...req, body: JSON.stringify({ postId: id }) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/like',
      headers: { authorization: auth },
      setupRequest: (req, ctx) => ({ ...req, path: `/api/like?postId=${String(ctx.postId)}` }),
    },
  ];
}

export function comment(token: string, nextPost: () => number): AutocannonRequest[] {
  return [
    {
      method: 'POST',
      path: '/api/comment',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ postId: nextPost(), comment: 'Cheers from the bench 🍺' }) }),
    },
  ];
}

export function followUnfollow(token: string, nextUser: () => string): AutocannonRequest[] {
  const auth = `Bearer ${token}`;
  return [
    {
      method: 'POST',
      path: '/api/account/x/follow',
      headers: { authorization: auth },
      setupRequest: (req, ctx) => {
        const name = nextUser();
        ctx.username = name;
        return { ...req, path: `/api/account/${encodeURIComponent(name)}/follow` };
      },
    },
    {
      method: 'DELETE',
      path: '/api/account/x/follow',
      headers: { authorization: auth },
      setupRequest: (req, ctx) => ({ ...req, path: `/api/account/${encodeURIComponent(String(ctx.username))}/follow` }),
    },
  ];
}

