import type Database from 'better-sqlite3';
import type { Context } from '@fedify/fedify';
import { Flag, type Recipient } from '@fedify/vocab';
import { badRequest, conflict, HttpError, notFound } from '../kernel/errors.js';
import { NOTE_MAX_LENGTH } from '../kernel/limits.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';
import { cleanText, clip } from '../kernel/text.js';
import type { FederatedPostsRepository } from './federated-posts-repository.js';
import type { RemoteActors } from './remote-actors.js';
import type { RemotePostsRepository } from './remote-posts-repository.js';
import { htmlToText } from './remote-posts.js';

export type ReportKind = 'post' | 'comment';

export interface FlagsDeps {
  origin: string;
  remoteActors: RemoteActors;
  remotePosts: RemotePostsRepository;
  ourPosts: FederatedPostsRepository;
  /** Suspended, or off the allow list while allow-list mode is on (domain-blocks.ts). */
  refused(host: string): boolean;
  /** The operator blocked the server with "reject reports" (Mastodon's reject_reports). */
  rejectsReports(host: string): boolean;
  /** Fedify's identifier of our instance actor (federation.ts): the Flag's actor, never a person. */
  instanceActor: string;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** The most items one Flag may name here: Mastodon sends the account and the few posts picked. */
const FLAG_ITEMS_MAX = 20;
const OUR_POST = /^\/users\/([1-9][0-9]{0,14})\/posts\/([1-9][0-9]{0,14})$/;
const OUR_COMMENT = /^\/users\/([1-9][0-9]{0,14})\/comments\/([1-9][0-9]{0,14})$/;

/**
 * Reports across servers, as Mastodon makes them (issue 50, item 1; docs/api.md, "Moderation").
 * Out: an operator forwards the open reports of another server's post or comment to that server,
 * as a `Flag` by our instance actor naming the author and the item, with the words the operator
 * chose: the people who reported it are never named nor sent. It is recorded on the reports
 * (forwarded_to, forwarded_at) in the transaction that logs it, so it goes once. In: a `Flag`
 * naming our posts or comments is a report from "a person on <host>" (reporter_host), at most one
 * open per server and item (reports_open_remote_unique), so a flood of them fills no page.
 */
export function createFlags(sqlite: Database.Database, deps: FlagsDeps) {
  const { origin, remoteActors, remotePosts, ourPosts, log } = deps;
  const moderationLog = createModerationLog(sqlite);

  const postItem = sqlite.prepare<[number], { postId: number; commentId: null; authorId: number; author: string; host: string | null }>(`
    SELECT p.id AS postId, NULL AS commentId, p.user_id AS authorId, u.username AS author, u.host FROM posts p JOIN users u ON u.id = p.user_id WHERE p.id = ?`);
  const commentItem = sqlite.prepare<[number], { postId: number; commentId: number; authorId: number; author: string; host: string | null }>(`
    SELECT c.post_id AS postId, c.id AS commentId, c.user_id AS authorId, u.username AS author, u.host FROM comments c JOIN users u ON u.id = c.user_id WHERE c.id = ?`);
  const openOf = sqlite.prepare<{ post: number; comment: number | null }, { open: number; forwardedTo: string | null }>(`
    SELECT count(*) AS open, max(forwarded_to) AS forwardedTo FROM reports
    WHERE resolved_at IS NULL AND post_id = @post AND comment_id IS @comment`);
  const markForwarded = sqlite.prepare<{ post: number; comment: number | null; host: string | null; at: number | null }>(`
    UPDATE reports SET forwarded_to = @host, forwarded_at = @at
    WHERE resolved_at IS NULL AND post_id = @post AND comment_id IS @comment`);
  const dropLogLine = sqlite.prepare<[number | bigint]>('DELETE FROM moderation_actions WHERE id = ?');
  const commentUri = sqlite.prepare<[number], string>('SELECT uri FROM remote_comments WHERE comment_id = ?').pluck();
  const insertRemote = sqlite.prepare<{ host: string; post: number; comment: number | null; note: string; now: number }>(`
    INSERT INTO reports (reporter_host, post_id, comment_id, reason, note, created_at)
    VALUES (@host, @post, @comment, 'other', @note, @now) ON CONFLICT DO NOTHING`);

  const itemOf = (kind: ReportKind, itemId: number) => {
    const item = kind === 'post' ? postItem.get(itemId) : commentItem.get(itemId);
    if (!item) throw notFound(kind === 'post' ? 'This post does not exist.' : 'This comment does not exist.');
    return item;
  };

  /** Claims the item's open reports as forwarded and logs it, or refuses: one transaction. */
  const claim = sqlite.transaction((op: Operator, kind: ReportKind, itemId: number, comment: string) => {
    const item = itemOf(kind, itemId);
    if (item.host === null) {
      throw new HttpError(400, 'not_remote', `This ${kind} is by ${item.author}, a person on this server: there is no other server to forward it to.`);
    }
    const open = openOf.get({ post: item.postId, comment: item.commentId })!;
    if (open.open === 0) throw notFound(`There is no open report on this ${kind}.`);
    if (open.forwardedTo !== null) throw new HttpError(409, 'already_forwarded', `These reports were already forwarded to ${open.forwardedTo}.`);
    if (deps.refused(item.host)) throw conflict(`${item.host} may not federate with this server (suspended, or not on the allow list): nothing is sent there.`);
    const at = Date.now();
    markForwarded.run({ post: item.postId, comment: item.commentId, host: item.host, at });
    const target = `${open.open} report${open.open === 1 ? '' : 's'} on ${kind} ${itemId} by ${item.author}, to ${item.host}`;
    const logged = moderationLog(op, 'forward_report', target, item.authorId, comment);
    return { ...item, host: item.host, logId: logged.lastInsertRowid };
  });
  /** A Flag that could not be queued was not sent: the reports may be forwarded again. */
  const unclaim = sqlite.transaction((item: { postId: number; commentId: number | null; logId: number | bigint }) => {
    markForwarded.run({ post: item.postId, comment: item.commentId, host: null, at: null });
    dropLogLine.run(item.logId);
  });

  /** The items of ours a Flag names, each once: posts other servers may see, and our people's shown comments. */
  const ourItems = (ids: readonly URL[]): Array<{ postId: number; commentId: number | null }> => {
    const items = new Map<string, { postId: number; commentId: number | null }>();
    for (const id of ids.slice(0, FLAG_ITEMS_MAX)) {
      if (id.origin !== origin) continue;
      const post = OUR_POST.exec(id.pathname);
      if (post) {
        const found = ourPosts.post(Number(post[2]));
        if (found && found.shareable === 1 && found.userId === Number(post[1])) items.set(`p${found.id}`, { postId: found.id, commentId: null });
        continue;
      }
      const comment = OUR_COMMENT.exec(id.pathname);
      if (comment) {
        const found = remotePosts.commentObject(Number(comment[2]));
        if (found && found.shown === 1 && found.userId === Number(comment[1])) items.set(`c${found.id}`, { postId: found.postId, commentId: found.id });
      }
      // Our person alone (a report of an account): reports here are of posts and comments, so it is not kept.
    }
    return [...items.values()];
  };

  const takeIn = sqlite.transaction((host: string, items: Array<{ postId: number; commentId: number | null }>, note: string) => {
    const now = Date.now();
    let taken = 0;
    for (const item of items) taken += insertRemote.run({ host, post: item.postId, comment: item.commentId, note, now }).changes;
    return taken;
  });

  return {
    /**
     * The operator forwards an item's open reports to its author's server: claimed and logged,
     * then queued (Fedify's queue retries it; delivery-failures.ts shows what failed).
     */
    async forward(ctx: Context<void>, op: Operator, kind: ReportKind, itemId: number, words: string): Promise<{ host: string }> {
      const comment = cleanText(words);
      if (Array.from(comment).length > NOTE_MAX_LENGTH) throw badRequest(`comment must be at most ${NOTE_MAX_LENGTH} characters.`);
      const item = claim.immediate(op, kind, itemId, comment);
      try {
        const them = remoteActors.recipient(item.authorId);
        const object = kind === 'post' ? remotePosts.ofPost(item.postId)?.uri : commentUri.get(itemId);
        if (!them || !object) throw new HttpError(409, 'conflict', `Where this ${kind} came from is no longer known here: it cannot be forwarded.`);
        const recipient: Recipient = {
          id: new URL(them.uri),
          inboxId: new URL(them.inbox),
          endpoints: them.sharedInbox ? { sharedInbox: new URL(them.sharedInbox) } : null,
        };
        const actor = ctx.getActorUri(deps.instanceActor);
        const flag = new Flag({
          id: new URL(`${actor.href}#flags/${kind}/${itemId}/${Date.now()}`),
          actor,
          objects: [new URL(them.uri), new URL(object)],
          content: comment,
        });
        await ctx.sendActivity({ identifier: deps.instanceActor }, recipient, flag, { preferSharedInbox: true });
      } catch (err) {
        unclaim.immediate(item);
        throw err;
      }
      return { host: item.host };
    },

    /** A Flag another server sent (its instance actor, or anyone there): a report per item of ours it names. */
    incoming(flag: Flag): void {
      const host = flag.actorId?.host.toLowerCase();
      if (!host || host === new URL(origin).host.toLowerCase()) return;
      if (deps.refused(host) || deps.rejectsReports(host)) {
        log.info({ host }, 'federation: a report from a server whose reports are not taken');
        return;
      }
      const items = ourItems(flag.objectIds);
      if (items.length === 0) return;
      const note = clip(cleanText(htmlToText(flag.content?.toString() ?? '')), NOTE_MAX_LENGTH);
      const taken = takeIn.immediate(host, items, note);
      log.info({ host, items: items.length, taken }, 'federation: a report from another server');
    },
  };
}

export type Flags = ReturnType<typeof createFlags>;
