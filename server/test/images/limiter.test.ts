import t from 'tap';
import { HttpError } from '../../src/kernel/errors.js';
import { createLimiter } from '../../src/media/images/limiter.js';

t.test('runs at most N jobs at once, in arrival order, and refuses past the queue', async (t) => {
  const limiter = createLimiter(2, 2);
  let active = 0;
  let peak = 0;
  const order: number[] = [];
  const gates: (() => void)[] = [];
  const job = (id: number) =>
    limiter.run(async () => {
      active++;
      peak = Math.max(peak, active);
      order.push(id);
      await new Promise<void>((resolve) => gates.push(resolve));
      active--;
      return id;
    });
  const running = [job(1), job(2), job(3), job(4)];
  await new Promise((r) => setImmediate(r));
  t.equal(limiter.running, 2);
  t.equal(limiter.queued, 2);
  const refused = await job(5).catch((err: unknown) => err);
  t.ok(refused instanceof HttpError && refused.statusCode === 503, 'queue full: 503');
  while (order.length < 4 || gates.length) {
    gates.shift()?.();
    await new Promise((r) => setImmediate(r));
  }
  t.same(await Promise.all(running), [1, 2, 3, 4]);
  t.same(order, [1, 2, 3, 4]);
  t.equal(peak, 2);
  t.equal(limiter.running, 0);
});

t.test('a failing job frees its slot', async (t) => {
  const limiter = createLimiter(1, 5);
  await t.rejects(limiter.run(async () => { throw new Error('boom'); }), /boom/);
  t.equal(await limiter.run(async () => 'next'), 'next');
  t.equal(limiter.running, 0);
});
