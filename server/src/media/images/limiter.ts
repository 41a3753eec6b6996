import { HttpError } from '../../kernel/errors.js';

/**
 * Runs at most `concurrency` jobs at once; up to `maxQueued` more wait in
 * line (first come, first served) and any beyond that are refused at once
 * with 503, so a burst of uploads cannot pile up memory or starve requests.
 */
export function createLimiter(concurrency: number, maxQueued: number) {
  let running = 0;
  const waiting: (() => void)[] = [];

  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) {
      running++;
      next();
    }
  };

  return {
    get running() {
      return running;
    },
    get queued() {
      return waiting.length;
    },
    async run<T>(job: () => Promise<T>): Promise<T> {
      if (running >= concurrency) {
        if (waiting.length >= maxQueued) {
          throw new HttpError(503, 'busy', 'The server is processing many images right now. Please try again in a minute.', {
            'retry-after': '30',
          });
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running++;
      }
      try {
        return await job();
      } finally {
        release();
      }
    },
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
