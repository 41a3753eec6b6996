// What a person brings to their first sign-in (docs/registration.md): the invite code of the link
// they opened and, in approval mode, why they want to join. Kept in sessionStorage from the
// landing page until the provider sends them back, then sent with every API call as
// X-Invite-Code and X-Join-Reason until one succeeds (the server has made the account by then).
import { useSyncExternalStore } from 'react';

const JOIN_KEY = 'sb.join';

interface JoinData {
  invite?: string;
  reason?: string;
}

function read(): JoinData {
  try {
    return JSON.parse(sessionStorage.getItem(JOIN_KEY) ?? '{}') as JoinData;
  } catch {
    return {};
  }
}

function write(patch: JoinData) {
  const next = { ...read(), ...patch };
  for (const key of Object.keys(next) as (keyof JoinData)[]) if (!next[key]) delete next[key];
  if (Object.keys(next).length === 0) sessionStorage.removeItem(JOIN_KEY);
  else sessionStorage.setItem(JOIN_KEY, JSON.stringify(next));
}

/** The invite code of the link this tab was opened with, if any. */
export const storedInvite = () => read().invite ?? null;
export const storedReason = () => read().reason ?? '';
export const rememberInvite = (code: string) => write({ invite: code.trim().slice(0, 100) });
export const rememberReason = (reason: string) => write({ reason: reason.slice(0, 500) });

let pendingHeaders = sessionStorage.getItem(JOIN_KEY) !== null;

/** The headers of a first sign-in; {} once the account exists. */
export function joinHeaders(): Record<string, string> {
  if (!pendingHeaders && sessionStorage.getItem(JOIN_KEY) === null) return {};
  pendingHeaders = true;
  const { invite, reason } = read();
  const headers: Record<string, string> = {};
  if (invite) headers['x-invite-code'] = invite;
  // Headers carry Latin-1 only: the reason goes percent-encoded (server/src/people/plugin.ts decodes it).
  if (reason) headers['x-join-reason'] = encodeURIComponent(reason);
  return headers;
}

/** Forgets the invite and the reason (an invite the server refused). */
export function forgetJoin() {
  pendingHeaders = false;
  sessionStorage.removeItem(JOIN_KEY);
}

/** An API call succeeded: the account exists, so nothing is carried any more. */
export function joined() {
  if (!pendingHeaders) return;
  pendingHeaders = false;
  sessionStorage.removeItem(JOIN_KEY);
}

// --- an account that cannot use the app yet (approval mode) ---

export type JoinBlock = 'pending' | 'rejected' | null;
let block: JoinBlock = null;
const listeners = new Set<() => void>();

/** Set by lib/api/client.ts when the server answers 403 account_pending or account_rejected. */
export function setJoinBlock(next: JoinBlock) {
  if (block === next) return;
  block = next;
  for (const l of listeners) l();
}

/** Whether the signed-in account waits for an operator, or was declined (app/app-layout.tsx shows it). */
export function useJoinBlock(): JoinBlock {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => block,
    () => null,
  );
}
