/**
 * Progress of waits: every waiter reports through its own callback and through one process-wide
 * channel, so a harness (the demo's progress bars, a test) can subscribe without being handed the
 * waiter. The channel lives on globalThis because a dynamic provider runs a serialized copy of this
 * module, which must still reach the subscribers of the original.
 */
import { Clock, systemClock } from "./clock";

export type WaitState = "waiting" | "done" | "failed";

export interface ProgressEvent {
  /** Which wait, e.g. `pool/worker`, `machinesets/openshift-machine-api/infra-a,infra-b`. */
  waiter: string;
  state: WaitState;
  /** One human line, e.g. `pool infra: 2/3 updated -> rendered-infra-1a2b`. */
  message: string;
  /** Units done out of total (machines updated, replicas ready, install steps), when countable. */
  done?: number;
  total?: number;
  elapsedMs: number;
}

export type ProgressListener = (event: ProgressEvent) => void;

const CHANNEL = "__openshiftTopologyWaitProgress";

function listeners(): Set<ProgressListener> {
  const g = globalThis as unknown as Record<string, Set<ProgressListener> | undefined>;
  return (g[CHANNEL] ??= new Set<ProgressListener>());
}

/** Receives every progress event of every wait in this process; returns the unsubscribe function. */
export function subscribeProgress(listener: ProgressListener): () => void {
  listeners().add(listener);
  return () => {
    listeners().delete(listener);
  };
}

function publish(event: ProgressEvent, own: ProgressListener | undefined): void {
  for (const listener of [...(own ? [own] : []), ...listeners()]) {
    try {
      listener(event);
    } catch {
      // A broken renderer must not break the wait it renders.
    }
  }
}

export interface ProgressReporter {
  /** Reports a state; repeated messages are dropped and changes are throttled to one per interval. */
  report(event: ProgressEvent): void;
  /** Reports the final state at once and cancels anything pending. */
  finish(event: ProgressEvent): void;
}

export function progressReporter(
  intervalMs: number,
  own?: ProgressListener,
  clock: Clock = systemClock,
): ProgressReporter {
  let lastSent = -Infinity;
  let lastMessage: string | undefined;
  let pending: ProgressEvent | undefined;
  let cancelTimer: (() => void) | undefined;

  const send = (event: ProgressEvent) => {
    pending = undefined;
    lastSent = clock.now();
    lastMessage = event.message;
    publish(event, own);
  };

  return {
    report(event) {
      if (event.message === lastMessage && !pending) return;
      if (event.message === lastMessage) {
        pending = undefined;
        return;
      }
      const wait = lastSent + intervalMs - clock.now();
      if (wait <= 0) {
        send(event);
        return;
      }
      pending = event;
      cancelTimer ??= clock.after(wait, () => {
        cancelTimer = undefined;
        if (pending) send(pending);
      });
    },
    finish(event) {
      cancelTimer?.();
      cancelTimer = undefined;
      send(event);
    },
  };
}
