/**
 * What an inbox POST may claim, checked on its JSON before Fedify verifies it (issue 50, item 3:
 * "its actor's host must match the object's"; plugin.ts calls it). Fedify checks the signature
 * and that the key's `owner` is the activity's actor, but it takes that owner from the key
 * document itself: a server could publish a key naming another server's person (or one of ours)
 * as its owner and speak for them (server/test/federation/hostile.test.ts, "names someone else
 * its owner"). So every signature must come from the actor's own server, as Mastodon requires of
 * the key's actor document. And an activity may only create, edit or delete what is its actor's:
 * on their server, attributed to them, and, for what is kept here, made by them. Refusing these
 * with a 4xx before anything is queued tells the sender, where the listeners (remote-posts.ts,
 * interactions.ts) would otherwise drop them quietly after a 202.
 *
 * It reads the compact form every server sends. A document that renames those terms in its
 * @context, or spells them as IRIs, could make Fedify read another actor than this check did:
 * such a document is refused. One that names a context we do not know (Pleroma's litepub, any
 * server's own) is read again as Fedify reads it (sameReading), and refused if that differs.
 */

export interface Refusal {
  status: 400 | 401 | 403;
  error: string;
  message: string;
}

export interface InboxGuardDeps {
  /** Our public origin: no activity from elsewhere is by one of our people. */
  origin: string;
  /** The actor id of the author of a kept object of another server (a post or a comment), by its id. */
  authorOf(uri: string): string | undefined;
}

/**
 * The verdict: refused, or taken (to Fedify), without the HTTP signature when only the embedded
 * one may vouch; `recheck` when a context we do not know could give its terms another meaning.
 */
export type Verdict = { refusal: Refusal } | { refusal: null; dropHttpSignature: boolean; recheck: Reading | null };

/** What the check read: the actor, and the object's id. */
export interface Reading {
  actor: string;
  objectId: string | undefined;
}

/** Contexts whose terms we know (Fedify preloads them): none redefines the ActivityStreams terms read here. */
const KNOWN_CONTEXTS = new Set([
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  'https://w3id.org/security/data-integrity/v1',
  'https://w3id.org/security/data-integrity/v2',
  'https://w3id.org/security/multikey/v1',
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/identity/v1',
  'https://gotosocial.org/ns',
  'https://join-lemmy.org/context.json',
  'https://w3id.org/fep/5711',
  'https://www.w3.org/ns/cid/v1',
]);

/** Whether every context named by URL is a known one. */
function knownContexts(context: unknown): boolean {
  if (Array.isArray(context)) return context.every(knownContexts);
  return typeof context !== 'string' || KNOWN_CONTEXTS.has(context);
}

/**
 * Whether Fedify reads the same actor and object as the check did (for a document with a context
 * we do not know). Fedify is imported here only when federation runs (plugin.ts loads it lazily).
 */
export async function sameReading(json: unknown, reading: Reading, contextLoader: (url: string) => Promise<unknown>): Promise<boolean> {
  const { Activity } = await import('@fedify/vocab');
  try {
    const activity = await Activity.fromJsonLd(json, { contextLoader: contextLoader as never, documentLoader: () => Promise.reject(new Error('not fetched')) });
    const actors = activity.actorIds.map((id) => id.href);
    return actors.length === 1 && actors[0] === new URL(reading.actor).href && (activity.objectId?.href ?? undefined) === (reading.objectId === undefined ? undefined : new URL(reading.objectId).href);
  } catch {
    return false;
  }
}

/** Terms whose meaning the check relies on: a @context may not redefine them. */
const GUARDED_TERMS = new Set(['id', 'type', 'actor', 'object', 'attributedTo', 'signature', 'proof', 'creator', 'verificationMethod']);
/** The same terms spelled as IRIs (full or `as:`), which a compact reader would not see. */
const GUARDED_IRI = /^(?:as:|https?:\/\/www\.w3\.org\/ns\/activitystreams#|sec:|https?:\/\/w3id\.org\/security#)(?:actor|object|attributedTo|signature|proof|creator|verificationMethod)$/;

const refuse = (status: Refusal['status'], message: string): Verdict => ({
  refusal: { status, error: status === 400 ? 'invalid_request' : status === 401 ? 'unauthorized' : 'forbidden', message },
});

/** An id as compact JSON-LD gives it: a string, or an object's `id`; the first of an array. */
function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 1 ? idOf(value[0]) : undefined;
  if (value && typeof value === 'object') {
    const id = (value as Record<string, unknown>).id ?? (value as Record<string, unknown>)['@id'];
    return typeof id === 'string' ? id : undefined;
  }
  return undefined;
}

function idsOf(value: unknown): Array<string | undefined> {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value.map(idOf) : [idOf(value)];
}

function hostOf(uri: string | undefined): string | null {
  if (uri === undefined) return null;
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** Whether a @context (string, object or array of them) redefines a guarded term. */
function redefines(context: unknown): boolean {
  if (Array.isArray(context)) return context.some(redefines);
  if (!context || typeof context !== 'object') return false;
  return Object.keys(context).some((term) => GUARDED_TERMS.has(term));
}

function renamed(object: Record<string, unknown>): boolean {
  return redefines(object['@context']) || Object.keys(object).some((key) => GUARDED_IRI.test(key));
}

/**
 * Checks an inbox POST's JSON. `httpSigner` is the host of its HTTP signature's key (inbox-limits.ts,
 * signerHost), or null when it has none. Anything not JSON, or not an object, goes on to Fedify,
 * which answers it 400.
 */
export function checkActivity(json: unknown, httpSigner: string | null, deps: InboxGuardDeps): Verdict {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { refusal: null, dropHttpSignature: false, recheck: null };
  const activity = json as Record<string, unknown>;
  const object = activity.object && typeof activity.object === 'object' && !Array.isArray(activity.object) ? (activity.object as Record<string, unknown>) : null;
  if (renamed(activity) || (object && renamed(object))) {
    return refuse(400, 'An activity must use ActivityStreams terms as they are defined: this one renames or spells out its actor, object or signature.');
  }

  const actors = idsOf(activity.actor);
  const actorHosts = new Set(actors.map(hostOf));
  if (actors.length === 0 || actorHosts.has(null)) return refuse(400, 'An activity names its actor by an http(s) address.');
  if (actorHosts.size > 1) return refuse(400, 'An activity has its actors on one server.');
  const actor = actors[0]!;
  const host = [...actorHosts][0]!;
  if (host === new URL(deps.origin).host.toLowerCase()) return refuse(401, 'An activity from another server cannot be by a person of this one.');

  // Every signature is by the actor's own server. An HTTP signature of another (a server
  // forwarding what the actor signed) counts for nothing: the embedded one must vouch alone.
  const signature = activity.signature && typeof activity.signature === 'object' ? (activity.signature as Record<string, unknown>) : null;
  const proofs: unknown[] = Array.isArray(activity.proof) ? activity.proof : activity.proof ? [activity.proof] : [];
  const embeddedKeys: Array<string | undefined> = [
    ...(signature ? [typeof signature.creator === 'string' ? signature.creator : undefined] : []),
    ...proofs.map((proof) => {
      const method = proof && typeof proof === 'object' ? (proof as Record<string, unknown>).verificationMethod : undefined;
      return typeof method === 'string' ? method : undefined;
    }),
  ];
  if (embeddedKeys.some((key) => hostOf(key) !== host)) {
    return refuse(401, `An activity by ${host} is signed by that server's keys only.`);
  }
  let dropHttpSignature = false;
  if (httpSigner !== null && httpSigner !== host) {
    if (embeddedKeys.length === 0) return refuse(401, `This activity is signed by ${httpSigner}, not by its actor's server (${host}).`);
    dropHttpSignature = true;
  }

  const id = idOf(activity.id);
  if (id !== undefined && hostOf(id) !== host) return refuse(403, "An activity's id is on its actor's server.");

  const types = (Array.isArray(activity.type) ? activity.type : [activity.type]).filter((type): type is string => typeof type === 'string');
  const objectId = idOf(activity.object);
  for (const type of types) {
    if (type === 'Create' || type === 'Update' || type === 'Delete') {
      if (objectId !== undefined && hostOf(objectId) !== host) return refuse(403, `A ${type} is only of what is on its actor's server.`);
      const attributed = object ? idsOf(object.attributedTo) : [];
      if (type !== 'Delete' && attributed.some((by) => by !== actor)) return refuse(403, `A ${type} is only of what its actor made.`);
      if (type !== 'Create' && objectId !== undefined) {
        const author = deps.authorOf(objectId);
        if (author !== undefined && author !== actor) return refuse(403, `Only its author may ${type === 'Update' ? 'edit' : 'delete'} this.`);
      }
    } else if (type === 'Undo' && object) {
      const undone = idsOf(object.actor);
      if (undone.some((by) => by !== actor)) return refuse(403, 'An Undo is only of what its actor did.');
    }
  }
  const known = knownContexts(activity['@context']) && (!object || knownContexts(object['@context']));
  return { refusal: null, dropHttpSignature, recheck: known ? null : { actor, objectId } };
}
