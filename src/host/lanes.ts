/**
 * Pacing on the host's one JavaScript thread: a turn of the event loop between slices of long work, and jobs run a
 * few at a time (file pieces through libuv's threads).
 */

/** One turn of the event loop (I/O callbacks and timers run), then on. */
export function turn(): Promise<void> {
  return new Promise((resolve) =>
    typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0),
  );
}

/**
 * Runs job(0 … count − 1) in index order, at most `lanes` at once. After a job fails no further one starts; the first
 * error is thrown once every job in flight has ended (so that what they use — an open file — may be closed then).
 */
export async function inLanes(count: number, lanes: number, job: (j: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < count) {
      try {
        await job(next++);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const ends = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(lanes, count)) }, lane));
  for (const end of ends) if (end.status === 'rejected') throw end.reason;
}
