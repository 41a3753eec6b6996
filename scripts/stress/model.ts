/**
 * What the load generator knows happened, from the answers it got. A write
 * answered 2xx (or a 409 that states the resulting state) is known; a write
 * whose connection broke mid-flight (the SIGKILL) is "in doubt": the server may
 * or may not have committed it. The check compares the database with the known
 * part and bounds the rest by the number of writes in doubt.
 */
export type Known = 'yes' | 'no' | 'unknown';

export class Model {
  /** `${userIdx}:${postId}` -> liked? */
  readonly likes = new Map<string, Known>();
  /** `${followerIdx}:${followeeIdx}` -> following? */
  readonly follows = new Map<string, Known>();
  /** Acknowledged comments: id -> where, and whether a delete was acknowledged ('no') or is in doubt. */
  readonly comments = new Map<number, { postId: number; userIdx: number; content: string; exists: Known }>();
  /** Acknowledged posts (seeded and created): id -> whether it still exists. */
  readonly posts = new Map<number, { userIdx: number; mediaKey: string; anonymous: boolean; exists: Known }>();
  /** Creates whose answer never came: each may or may not be in the database. */
  inDoubtCommentCreates = 0;
  inDoubtPostCreates = 0;

  /** Live post ids clients pick from (acknowledged, not deleted). */
  livePosts(): number[] {
    const out: number[] = [];
    for (const [id, p] of this.posts) if (p.exists === 'yes') out.push(id);
    return out;
  }

  postGone(postId: number) {
    const post = this.posts.get(postId);
    if (post) post.exists = 'no';
  }
}

/** Counts of what was sent and how it was answered, per operation. */
export class Tally {
  readonly byOp = new Map<string, { sent: number; ok: number; clientErr: number; serverErr: number; refused: number; inDoubt: number }>();
  readonly statuses = new Map<number, number>();
  readonly serverErrors: string[] = [];

  private row(op: string) {
    let r = this.byOp.get(op);
    if (!r) this.byOp.set(op, (r = { sent: 0, ok: 0, clientErr: 0, serverErr: 0, refused: 0, inDoubt: 0 }));
    return r;
  }

  answered(op: string, status: number, body: string) {
    const r = this.row(op);
    r.sent++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status < 400) r.ok++;
    else if (status < 500) r.clientErr++;
    else {
      r.serverErr++;
      if (this.serverErrors.length < 20) this.serverErrors.push(`${op} ${status} ${body.slice(0, 200)}`);
    }
  }

  /** The connection was refused: the request never reached a server. */
  refused(op: string) {
    const r = this.row(op);
    r.sent++;
    r.refused++;
  }

  /** The connection broke after the request was sent: its outcome is unknown. */
  inDoubt(op: string) {
    const r = this.row(op);
    r.sent++;
    r.inDoubt++;
  }

  totals() {
    const t = { sent: 0, ok: 0, clientErr: 0, serverErr: 0, refused: 0, inDoubt: 0 };
    for (const r of this.byOp.values()) for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += r[k];
    return t;
  }
}
