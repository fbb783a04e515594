/**
 * The evaluation half of the waiting core: the stores the reflector (`reflector.ts`) keeps become a
 * view, and a pure predicate is evaluated on it after every change until it says done or failed; one
 * deadline bounds everything. The predicate asks for what else it needs (another source, a get, a
 * patch) instead of doing I/O, so it stays a pure function of what was observed. A get that finds
 * nothing watches that name until the object appears: nothing absent is taken as absent for good.
 */
import { ApiClient } from "./api";
import { Clock, systemClock } from "./clock";
import { KubeObject, ResourceKind } from "./kinds";
import { ProgressListener, ProgressReporter, progressReporter, WaitState } from "./progress";
import { reflect, retrying, Session, SourceSpec, Store } from "./reflector";
import { ApiError, DEFAULT_RETRY, describeApiError, RetryPolicy } from "./retry";

export type { SourceSpec } from "./reflector";

export type Need =
  | { type: "source"; source: SourceSpec }
  /**
   * A read; the view holds the object, or null while it does not exist: an absent object is then
   * watched by name until it appears (a one-off read under `observe`).
   */
  | {
      type: "get";
      key: string;
      resource: ResourceKind;
      name: string;
      namespace?: string;
      metadataOnly?: boolean;
    }
  /** A merge patch sent once per key; the view marks it done. Never sent by a read-only observation. */
  | {
      type: "patch";
      key: string;
      resource: ResourceKind;
      name: string;
      namespace?: string;
      patch: unknown;
      /** An object gone by the time the patch is sent needs it no more (a Machine another controller deleted). */
      unlessGone?: boolean;
      /**
       * The patch carries the resourceVersion it was decided from: a 409 says the object has changed
       * since, and the evaluation of the change decides anew (under another key).
       */
      unlessChanged?: boolean;
    }
  /** A delete sent once per key; the view marks it done with the patches. Never sent by an observation. */
  | { type: "delete"; key: string; resource: ResourceKind; name: string; namespace?: string }
  /**
   * Evaluate again after this long even if nothing changes: a failure that is final only once it has
   * lasted (persistence.ts) must be judged when that time comes. Ignored by a read-only observation.
   */
  | { type: "recheck"; afterMs: number };

type GetNeed = Extract<Need, { type: "get" }>;

export interface View {
  /**
   * Objects of each listed source; absent until that source's first list has arrived, null when the
   * cluster does not serve a `servedOrNull` source's resource.
   */
  sources: Record<string, KubeObject[] | null | undefined>;
  /** Results of `get` needs (object or null) by key. */
  fetched: Record<string, KubeObject | null | undefined>;
  /** Keys of patches and deletes that were applied. */
  patched: Record<string, true | undefined>;
  /** Milliseconds since the wait began. */
  elapsedMs: number;
}

export interface Evaluation<R> {
  state: WaitState;
  message: string;
  done?: number;
  total?: number;
  /** What the wait returns when done (and what `observe` reports at any state). */
  result?: R;
  needs?: Need[];
}

export interface WaitOptions {
  /** The overall deadline of the wait. */
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: ProgressListener;
  /** At most one progress event per interval (default 1000 ms); the final state is always reported. */
  progressIntervalMs?: number;
  retry?: RetryPolicy;
  /** Time for the deadline, backoff and progress throttling; the system clock unless a test gives one. */
  clock?: Clock;
}

export interface ConvergeOptions<R> extends WaitOptions {
  client: ApiClient;
  /** Names the wait in messages and progress, e.g. `pool worker`. */
  waiter: string;
  sources: SourceSpec[];
  evaluate: (view: View) => Evaluation<R>;
}

export interface Outcome<R> {
  result: R;
  message: string;
  elapsedMs: number;
  /** API requests the wait sent (lists, watches, gets, patches, retries and reconnects). */
  requests: number;
}

export type WaitErrorKind = "failed" | "timeout" | "aborted";

/** Why a wait ended without success; `kind` tells a converged failure from a deadline or a cancel. */
export interface WaitError extends Error {
  kind: WaitErrorKind;
  waiter: string;
  /** The last evaluation's message. */
  detail: string;
}

export function waitError(kind: WaitErrorKind, waiter: string, message: string, detail: string): WaitError {
  return Object.assign(new Error(message), { name: "WaitError", kind, waiter, detail });
}

export function isWaitError(error: unknown): error is WaitError {
  return error instanceof Error && error.name === "WaitError";
}

/** The state of one wait, shared by the functions below (plain data and functions: see `../dynamic/common.ts`). */
interface Run<R> {
  options: ConvergeOptions<R>;
  /** Sources are only listed, patches are not sent, and the first complete evaluation ends the run. */
  once: boolean;
  session: Session;
  started: number;
  /** Each started source's store, undefined until its first list arrived, null when not served. */
  stores: Record<string, Store | null | undefined>;
  /** What each started source asks the API for, and what stops its reflector. */
  reflectors: Record<string, { spec: string; stop: AbortController }>;
  fetched: View["fetched"];
  patched: View["patched"];
  /**
   * The gets, patches and deletes sent, by type and key: each is sent once, retried until answered (a
   * read and a patch may share a key, as `fetched` and `patched` are apart).
   */
  requested: Record<string, true | undefined>;
  /** Cancels the pending recheck timer. */
  cancelRecheck?: () => void;
  reporter: ProgressReporter;
  /** Watches gone silent in a row, by what they watch (the reflector's `silent`). */
  silences: Record<string, number>;
  last: Evaluation<R>;
  finish(error: WaitError | undefined, evaluation: Evaluation<R>): void;
}

function ended(run: Run<unknown>): boolean {
  return run.session.signal.aborted;
}

/** Watches are taken for silent in a row this many times before the progress line says so. */
const SILENCES_TOLD = 2;

/**
 * What keeps going wrong with the watches, for the progress line: `; watches of nodes silent 3 times
 * in a row; polling by list` (a proxy that buffers streamed answers silences every watch).
 */
function watchNotes(run: Run<unknown>): string {
  return Object.entries(run.silences)
    .filter(([, times]) => times >= SILENCES_TOLD)
    .map(([what, times]) => `; watches of ${what} silent ${times} times in a row; polling by list`)
    .join("");
}

function progressOf<R>(run: Run<R>, evaluation: Evaluation<R>) {
  const { state, message, done, total } = evaluation;
  return {
    waiter: run.options.waiter,
    state,
    message: state === "waiting" ? `${message}${watchNotes(run)}` : message,
    done,
    total,
    elapsedMs: run.session.clock.now() - run.started,
  };
}

function view(run: Run<unknown>): View | undefined {
  const sources: View["sources"] = {};
  for (const [name, store] of Object.entries(run.stores)) {
    if (store === undefined) return undefined;
    sources[name] = store && [...store.values()];
  }
  return {
    sources,
    fetched: run.fetched,
    patched: run.patched,
    elapsedMs: run.session.clock.now() - run.started,
  };
}

function reevaluate<R>(run: Run<R>): void {
  if (ended(run)) return;
  const current = view(run);
  if (!current) return;
  const { waiter } = run.options;
  let evaluation: Evaluation<R>;
  try {
    evaluation = run.options.evaluate(current);
  } catch (e) {
    return run.session.fail(`${waiter}: ${(e as Error).message}`);
  }
  run.last = evaluation;
  if (evaluation.state === "done" || (run.once && evaluation.state === "failed"))
    return run.finish(undefined, evaluation);
  if (evaluation.state === "failed") {
    return run.finish(waitError("failed", waiter, evaluation.message, evaluation.message), evaluation);
  }
  // An observation is complete when nothing it lacks is asked: a source already listed is had, even
  // when the predicate, whose source depends on what it sees, asks for it again (with the same
  // selectors), and so is a read already answered, were the answer that the object does not exist.
  const pending = (evaluation.needs ?? []).filter(
    (n) =>
      !(run.once && (n.type === "patch" || n.type === "delete" || n.type === "recheck")) &&
      !(n.type === "source" && run.stores[n.source.name] !== undefined && !changedSpec(run, n.source)) &&
      !(n.type === "get" && run.fetched[n.key] !== undefined),
  );
  if (run.once && pending.length === 0) return run.finish(undefined, evaluation);
  for (const need of pending) satisfy(run, need);
  run.reporter.report(progressOf(run, evaluation));
}

/** The predicate asks for a started source with other selectors: a pool's nodeSelector was edited, say. */
function changedSpec(run: Run<unknown>, source: SourceSpec): boolean {
  const reflector = run.reflectors[source.name];
  return reflector !== undefined && reflector.spec !== JSON.stringify(source);
}

function satisfy<R>(run: Run<R>, need: Need): void {
  if (need.type === "source") {
    // The objects of the old selectors are dropped and the new ones listed before the next evaluation.
    if (changedSpec(run, need.source)) run.reflectors[need.source.name].stop.abort();
    else if (need.source.name in run.stores) return;
    startSource(run, need.source);
    return;
  }
  if (need.type === "recheck") {
    // One timer, for the latest evaluation's ask: an earlier ask is superseded.
    run.cancelRecheck?.();
    run.cancelRecheck = run.session.clock.after(need.afterMs, () => reevaluate(run));
    return;
  }
  const requested = `${need.type}/${need.key}`;
  if (run.requested[requested]) return;
  run.requested[requested] = true;
  void request(run, need).then(() => {
    reevaluate(run);
    if (need.type === "get" && run.fetched[need.key] === null && !run.once) follow(run, need);
  });
}

/** Sends what a get, patch or delete need asks for, retrying, and records the answer in the run. */
function request<R>(run: Run<R>, need: Exclude<Need, { type: "source" | "recheck" }>): Promise<unknown> {
  const { session, fetched, patched } = run;
  const { client } = session;
  if (need.type === "get") {
    return retrying(session, `read ${need.resource.kind} ${need.name}`, (s) =>
      client.get(need.resource, need.name, need.namespace, s).then((o) => {
        fetched[need.key] = o ? kept(need, o) : null;
      }),
    );
  }
  if (need.type === "delete") {
    return retrying(session, `delete ${need.resource.kind} ${need.name}`, (s) =>
      client.delete(need.resource, need.name, need.namespace, s).then(() => {
        patched[need.key] = true;
      }),
    );
  }
  return retrying(session, `patch ${need.resource.kind} ${need.name}`, (s) =>
    client.mergePatch(need.resource, need.name, need.namespace, need.patch, s).then(
      () => {
        patched[need.key] = true;
      },
      (e: ApiError) => {
        const settled = (need.unlessGone && e.status === 404) || (need.unlessChanged && e.status === 409);
        if (!settled) throw e;
        patched[need.key] = true;
      },
    ),
  );
}

/** Existence checks of secrets keep nothing of their data. */
function kept(need: GetNeed, object: KubeObject): KubeObject {
  return need.metadataOnly ? { metadata: object.metadata } : object;
}

/**
 * A read found nothing, yet the object may be created at any moment (by the program, an operator or a
 * controller): watch that one name until it appears, then hold it as the read's result.
 */
function follow<R>(run: Run<R>, need: GetNeed): void {
  const byName = { name: need.key, resource: need.resource, namespace: need.namespace };
  void reflect(run.session, { ...byName, fieldSelector: `metadata.name=${need.name}` }, (store) => {
    const [object] = store?.values() ?? [];
    if (!object) return false;
    run.fetched[need.key] = kept(need, object);
    reevaluate(run);
    return true;
  });
}

function startSource<R>(run: Run<R>, source: SourceSpec): void {
  const stop = new AbortController();
  run.reflectors[source.name] = { spec: JSON.stringify(source), stop };
  run.stores[source.name] = undefined;
  const session = { ...run.session, signal: AbortSignal.any([run.session.signal, stop.signal]) };
  void reflect(session, source, (store) => {
    if (stop.signal.aborted) return true;
    run.stores[source.name] = store;
    reevaluate(run);
    return run.once;
  });
}

/**
 * Runs a wait. With `once`, sources are only listed (no watches, no patches) and the first evaluation
 * whose needs are met is returned whatever its state: the read-only observation behind `read`.
 */
function runWait<R>(
  options: ConvergeOptions<R>,
  once: boolean,
): Promise<{ evaluation: Evaluation<R>; outcome: Outcome<R> }> {
  const { client, waiter } = options;
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const firstRequest = client.requests;
  const stop = new AbortController();
  const timing: { lastApiError?: unknown; cancelDeadline?: () => void; onAbort?: () => void } = {};

  return new Promise((resolve, reject) => {
    // Declared before the closures that use them: Pulumi's closure serializer resolves names in order.
    const run: Run<R> = {
      options,
      once,
      started,
      stores: {},
      reflectors: {},
      fetched: {},
      patched: {},
      requested: {},
      reporter: progressReporter(options.progressIntervalMs ?? 1000, options.onProgress, clock),
      silences: {},
      last: { state: "waiting", message: `${waiter}: connecting` },
      session: {
        waiter,
        client,
        clock,
        policy: options.retry ?? DEFAULT_RETRY,
        signal: stop.signal,
        fail: (message) => fail("failed", message),
        transient: (error) => {
          timing.lastApiError = error;
        },
        silent: (what, times) => {
          run.silences[what] = times;
        },
      },
      finish: (error, evaluation) => {
        if (stop.signal.aborted) return;
        stop.abort();
        timing.cancelDeadline?.();
        run.cancelRecheck?.();
        if (timing.onAbort) options.signal?.removeEventListener("abort", timing.onAbort);
        run.reporter.finish(progressOf(run, evaluation));
        if (error) return reject(error);
        resolve({
          evaluation,
          outcome: {
            result: evaluation.result as R,
            message: evaluation.message,
            elapsedMs: clock.now() - started,
            requests: client.requests - firstRequest,
          },
        });
      },
    };
    function fail(kind: WaitErrorKind, message: string): void {
      run.finish(waitError(kind, waiter, message, run.last.message), {
        ...run.last,
        state: "failed",
        message,
      });
    }

    timing.cancelDeadline = clock.after(options.timeoutMs, () => {
      const seconds = Math.round(options.timeoutMs / 100) / 10;
      const api = timing.lastApiError ? ` (last API error: ${describeApiError(timing.lastApiError)})` : "";
      fail(
        "timeout",
        `timed out after ${seconds}s waiting for ${waiter}: ${run.last.message}${watchNotes(run)}${api}`,
      );
    });
    timing.onAbort = () => fail("aborted", `wait for ${waiter} cancelled: ${run.last.message}`);
    if (options.signal?.aborted) return timing.onAbort();
    options.signal?.addEventListener("abort", timing.onAbort);

    for (const source of options.sources) startSource(run, source);
    // Evaluates at once a wait without sources; one with sources waits for their lists (no view yet).
    reevaluate(run);
  });
}

/** Waits until the predicate says done (resolves) or failed, the deadline passes or the signal aborts (rejects). */
export async function converge<R>(options: ConvergeOptions<R>): Promise<Outcome<R>> {
  return (await runWait(options, false)).outcome;
}

/** Lists once and evaluates without waiting or changing anything; any state is returned, not thrown. */
export async function observe<R>(options: ConvergeOptions<R>): Promise<Evaluation<R>> {
  return (await runWait(options, true)).evaluation;
}
