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
