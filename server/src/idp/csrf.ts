import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Double-submit CSRF protection for the sign-in and sign-up forms: a random
 * token in a SameSite=Strict, HttpOnly cookie and the same token in a hidden
 * field. A page on another site can neither read the cookie nor make the
 * browser send it with a cross-site POST, so it cannot forge a submission
 * (for example to sign a victim into the attacker's account).
 */
export const CSRF_COOKIE = 'sb_idp_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MAX_AGE_SECONDS = 2 * 3600;

export const newCsrfToken = () => randomBytes(32).toString('base64url');

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The token a page should carry: the browser's current one when well formed, else a new one. */
export function csrfTokenFor(cookieHeader: string | undefined): string {
  const current = readCookie(cookieHeader, CSRF_COOKIE);
  return current && TOKEN.test(current) ? current : newCsrfToken();
}

export function csrfCookie(token: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; Path=/oauth2; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearCsrfCookie(secure: boolean): string {
  return `${CSRF_COOKIE}=; Path=/oauth2; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** True when the form's token equals the cookie's (compared in constant time). */
export function csrfValid(cookieHeader: string | undefined, formToken: unknown): boolean {
  const cookie = readCookie(cookieHeader, CSRF_COOKIE);
  if (!cookie || typeof formToken !== 'string' || !TOKEN.test(cookie) || !TOKEN.test(formToken)) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(formToken));
}
