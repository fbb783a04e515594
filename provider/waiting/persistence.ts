/**
 * Failures the cluster's controllers retry on their own are not final when first seen: OLM re-resolves a
 * namespace and re-checks a Failed CSV (olm/operator.go transitionCSVState, case CSVPhaseFailed), and the
 * machine-config daemon retries a failed update with a backoff of up to a minute (daemon.go handleErr,
 * maxUpdateBackoff). A wait takes such a failure as final once it persists: this wait has seen it without
 * a break for PERSISTENCE_MS, five minutes, which covers several of the daemon's retries at its longest
 * backoff and a catalog pod's start, and is a sixth of the default deadline.
 */

export const PERSISTENCE_MS = 5 * 60_000;

/** A failure a controller retries; `key` names it across evaluations (a condition type, a node). */
export interface Problem {
  key: string;
  message: string;
}

/** When (ms on the wait's clock) this wait began to see each problem, without a break since. */
export type Sightings = Record<string, number>;

export interface Persistence {
  /** The problems seen for PERSISTENCE_MS, each with the time it lasted. */
  persisted: string[];
  /** Each problem not yet final, with how long it has lasted. */
  pending: string[];
  /** Milliseconds until the earliest pending problem becomes final. */
  recheckMs?: number;
}

function minutes(ms: number): string {
  return `${Math.floor(ms / 60_000)}m${Math.floor((ms % 60_000) / 1000)}s`;
}

/** Which of `problems` (first seen at `since`, or now when unseen) have persisted at `nowMs`. */
export function judgePersistence(problems: Problem[], since: Sightings, nowMs: number): Persistence {
  const out: Persistence = { persisted: [], pending: [] };
  for (const p of problems) {
    const lasted = nowMs - (since[p.key] ?? nowMs);
    if (lasted >= PERSISTENCE_MS) {
      out.persisted.push(
        `${p.message} (persisted ${minutes(lasted)}, past the ${minutes(PERSISTENCE_MS)} allowed for retries)`,
      );
      continue;
    }
    out.pending.push(
      `${p.message} (for ${minutes(lasted)}; retried, final after ${minutes(PERSISTENCE_MS)})`,
    );
    const left = PERSISTENCE_MS - lasted;
    out.recheckMs = Math.min(out.recheckMs ?? left, left);
  }
  return out;
}

/** Records the problems seen now and forgets those gone: a break starts the count again. */
export function recordSightings(since: Sightings, problems: Problem[], nowMs: number): void {
  const keys = new Set(problems.map((p) => p.key));
  for (const key of Object.keys(since)) if (!keys.has(key)) delete since[key];
  for (const key of keys) since[key] ??= nowMs;
}
