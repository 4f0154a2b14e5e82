/**
 * The node agent's periodic loops (the kubelet's `wait.Until` / `wait.JitterUntil`), made so that
 * many agents in one process (the fleet's hollow nodes) do not fall into step.
 *
 * Node's `setInterval` sets each timer's next run from the event loop's cached time. After a long
 * turn of the loop every overdue interval fires in the same pass and gets the same next run, so a
 * thousand agents' 1 s relists end up firing together, and each burst causes the next stall. A
 * kubelet has no such coupling: its goroutines are preempted. Here each loop keeps its own phase:
 * runs are due at `anchor + k × periodMs` (the anchor is when the loop started, so loops started
 * at different times stay apart), a run never overlaps the previous one, and due times that fall
 * less than half a period after the previous run's end are skipped. A stall therefore delays a run
 * once; it does not move the loop's phase.
 * @see staging/src/k8s.io/apimachinery/pkg/util/wait/wait.go (JitterUntil) in kubernetes/kubernetes v1.23
 */

/** Options of {@link runPeriodically}. */
export interface PeriodicOptions {
  /**
   * Each run is delayed by a further `periodMs × jitterFactor × random()` past its due time, as
   * `wait.JitterUntil`'s jitter (the kubelet uses 0.04 for the node status). @defaultValue 0
   */
  readonly jitterFactor?: number;
  /** Uniform in [0, 1) for the jitter. @defaultValue `Math.random` */
  readonly random?: () => number;
  /** The wall clock in ms (`Date.now`, which vitest's fake timers also drive). @defaultValue `Date.now` */
  readonly nowMs?: () => number;
  /** Runs `fn` once at once as well (as `wait.Until` does); otherwise the first run is one period after the start. @defaultValue false */
  readonly immediate?: boolean;
}

/** A loop started by {@link runPeriodically}. */
export interface PeriodicLoop {
  /** Ends the loop: no run starts after this; a run in flight finishes. Idempotent. */
  stop(): void;
}

/**
 * Runs `fn` every `periodMs` milliseconds, phase-locked to the moment of the call (see the module
 * comment), until {@link PeriodicLoop.stop}. A run that throws or rejects does not end the loop
 * (the error is dropped: `fn` logs its own). The timer is unref'd: the loop never keeps the
 * process alive.
 * @param periodMs the period in ms; must be a finite number > 0
 * @throws RangeError when `periodMs` is not a finite number > 0
 * @example
 * const loop = runPeriodically(1_000, relist);
 * // later
 * loop.stop();
 */
export function runPeriodically(periodMs: number, fn: () => unknown, options: PeriodicOptions = {}): PeriodicLoop {
  if (!Number.isFinite(periodMs) || periodMs <= 0) throw new RangeError(`periodMs must be a finite number > 0, got ${String(periodMs)}`);
  const now = options.nowMs ?? Date.now;
  const random = options.random ?? Math.random;
  const jitterFactor = options.jitterFactor ?? 0;
  let anchorMs = now();
  // No due time is further ahead than this; one that is was set before the wall clock went back.
  const maxAheadMs = periodMs * (1 + jitterFactor) + 1;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dueMs = anchorMs;

  // The first due time on the grid at least half a period after `afterMs`, plus this run's jitter.
  const nextDue = (afterMs: number): number => {
    const k = Math.max(1, Math.ceil((afterMs + periodMs / 2 - anchorMs) / periodMs));
    return anchorMs + k * periodMs + (jitterFactor > 0 ? periodMs * jitterFactor * random() : 0);
  };
  const arm = (): void => {
    if (stopped) return;
    timer = setTimeout(fire, Math.min(maxAheadMs, Math.max(0, dueMs - now())));
    timer.unref();
  };
  const fire = (): void => {
    timer = undefined;
    if (stopped) return;
    // The timer counts from the loop's cached time, which lags the clock after a long turn; a
    // timer that fires before its due time is armed again for the rest.
    const earlyMs = dueMs - now();
    if (earlyMs > maxAheadMs) {
      // The wall clock went back: the grid starts again from now.
      anchorMs = now() - periodMs;
    } else if (earlyMs > 1) {
      return arm();
    }
    let result: unknown;
    try {
      result = fn();
    } catch {
      result = undefined;
    }
    const done = (): void => {
      dueMs = nextDue(now());
      arm();
    };
    if (result instanceof Promise) void result.then(done, done);
    else done();
  };

  if (options.immediate) {
    dueMs = anchorMs;
    fire();
  } else {
    dueMs = nextDue(anchorMs - periodMs / 2);
    arm();
  }
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
