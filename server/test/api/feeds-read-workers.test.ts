// The feed tests again, with the pages served by two read worker threads
// (their own connections) instead of inline: same answers, and every write the
// API acknowledged is in the next page a worker serves.
process.env.TEST_READ_WORKERS = '2';
await import('./feeds.test.js');
