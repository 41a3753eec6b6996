// The server's own page and who may join (docs/registration.md): its details, which anyone may
// read, the operator's settings and join requests, and invites.
import { ApiError, baseUrl, call, request } from '@/lib/api/client';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

export type Instance = Static<typeof shapes.Instance>;
export type Invite = Static<typeof shapes.InviteView>;
export type JoinRequest = Static<typeof shapes.JoinRequestView>;
export type NewInvite = Static<typeof shapes.NewInvite>;
export type RegistrationMode = Static<typeof shapes.RegistrationModeName>;
type Done = Static<typeof answers.Done>;

/** GET /api/instance needs no token: asked without one, so a signed-out page can call it. */
export async function getInstance(signal?: AbortSignal): Promise<Instance> {
  const res = await fetch(`${baseUrl('main')}/api/instance`, { headers: { accept: 'application/json' }, signal });
  if (!res.ok) throw new ApiError(res.status, `The server's details could not be loaded (${res.status}).`);
  return (await res.json()) as Instance;
}
/** What an operator may change (the server's body schema), the mode narrowed to the modes there are. */
export type InstanceChange = Omit<Static<typeof answers.InstanceChange>, 'registrationMode'> & { registrationMode?: RegistrationMode };
export const updateInstance = (change: InstanceChange) => request<Instance>('/api/admin/instance', { method: 'PUT', body: change });
export const getJoinRequests = () => request<Static<typeof answers.JoinRequests>>('/api/admin/join-requests');
export const approveJoin = (username: string) =>
  request<Done>(`/api/admin/join-requests/${encodeURIComponent(username)}/approve`, { method: 'POST', body: {} });
export const rejectJoin = (username: string) =>
  request<Done>(`/api/admin/join-requests/${encodeURIComponent(username)}/reject`, { method: 'POST', body: {} });
export const getInvites = () => request<Static<typeof answers.Invites>>('/api/invites');
export const createInvite = (expiresInHours: number, maxUses: number) =>
  request<NewInvite>('/api/invites', { method: 'POST', body: { expiresInHours, maxUses } });
export const revokeInvite = (id: number) => request<Done>(`/api/invites/${id}`, { method: 'DELETE', body: {} });

/** Federation on the operator settings page (issue 49): the switch, the servers known here, the queue and its failures. */
export type FederationStatus = Static<typeof answers.FederationStatus>;
export const getFederation = () => request<FederationStatus>('/api/admin/federation');
export const setFederation = (enabled: boolean) => request<FederationStatus>('/api/admin/federation', { method: 'PUT', body: { enabled } });
/** Authorized fetch on or off (docs/api.md, "Federation on the operator page"). */
export const setAuthorizedFetch = (enabled: boolean) =>
  request<FederationStatus>('/api/admin/federation/authorized-fetch', { method: 'PUT', body: { enabled } });

/** Blocks of other servers (docs/api.md, "Blocking servers"). */
export type DomainBlock = Static<typeof answers.DomainBlockView>;
export type DomainBlockChange = Static<typeof answers.DomainBlockChange>;
export const getDomainBlocks = () => request<Static<typeof answers.DomainBlocks>>('/api/admin/federation/blocks');
export const saveDomainBlock = (change: DomainBlockChange) =>
  request<Static<typeof answers.DomainBlockSaved>>('/api/admin/federation/blocks', { method: 'PUT', body: change });
export const liftDomainBlock = (domain: string) =>
  request<Done>(`/api/admin/federation/blocks/${encodeURIComponent(domain)}`, { method: 'DELETE' });
export const importDomainBlocks = (csv: string) =>
  request<Static<typeof answers.DomainBlockImported>>('/api/admin/federation/blocks/import', { method: 'POST', body: { csv } });
/** Allow-list mode and its list (docs/api.md, "Allow-list mode"). */
export type DomainAllows = Static<typeof answers.DomainAllows>;
export const getDomainAllows = () => request<DomainAllows>('/api/admin/federation/allows');
export const allowDomain = (domain: string, comment: string) =>
  request<DomainAllows>('/api/admin/federation/allows', { method: 'PUT', body: { domain, comment } });
export const disallowDomain = (domain: string) =>
  request<DomainAllows>(`/api/admin/federation/allows/${encodeURIComponent(domain)}`, { method: 'DELETE' });
export const setAllowListMode = (enabled: boolean) =>
  request<DomainAllows>('/api/admin/federation/allow-list', { method: 'PUT', body: { enabled } });
/** Mastodon's CSV of the list, as a file to save. */
export async function exportDomainBlocks(): Promise<Blob> {
  return (await call('/api/admin/federation/blocks/export', {}, 'text/csv')).blob();
}
