/**
 * One drainer of an event table (post-activities.ts, interactions.ts): `pass` handles what is
 * waiting; a call while one runs makes it go round again when done, so events written meanwhile
 * are not left for the next tick, and two passes never run at once (events go out in order).
 */
export function serialDrain(pass: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return function drain(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      // Past this await, `running` is this promise: the finally below must not run before it is set.
      await null;
      try {
        do {
          again = false;
          await pass();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}

/** Events in batches of this many: one read of the table each. */
const EVENT_BATCH = 50;

/**
 * Sends every waiting event of a table in order (federation_post_events,
 * federation_interaction_events): each handled, then marked done whatever happened, so one that
 * cannot be sent is logged (`failed`) and never holds up the rest.
 */
export async function eachEvent<E extends { id: number }>(table: {
  next(limit: number): E[];
  handle(event: E): Promise<void>;
  done(id: number): void;
  failed(err: unknown, event: E): void;
}): Promise<void> {
  for (;;) {
    const batch = table.next(EVENT_BATCH);
    if (batch.length === 0) return;
    for (const event of batch) {
      try {
        await table.handle(event);
      } catch (err) {
        table.failed(err, event);
      }
      table.done(event.id);
    }
  }
}
