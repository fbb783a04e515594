/**
 * The engine every waiter runs on: list each source, then watch it from the list's resourceVersion,
 * keep a cache per source, and re-evaluate a pure predicate after every change until it says done or
 * failed. Watches resume from the last resourceVersion seen (events and bookmarks), re-list on 410
 * Gone, and retry 429, 5xx and network failures with backoff; one deadline bounds everything. The
 * predicate asks for what else it needs (another source, a get, a one-off list, a patch) instead of
 * doing I/O, so it stays a pure function of what was observed. A get that finds nothing watches that
 * name until the object appears: nothing absent is taken as absent for good.
 */
import { ApiClient, Selectors } from "./api";
import { KubeObject, ResourceKind, objectKey } from "./kinds";
import { ProgressListener, progressReporter, WaitState } from "./progress";
import { ApiError, DEFAULT_RETRY, describeApiError, isRetryable, RetryPolicy, retryDelay } from "./retry";

export interface SourceSpec extends Selectors {
  /** How the predicate finds this source's objects in the view. */
  name: string;
  resource: ResourceKind;
}

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
  /**
   * A one-off list; the view holds the items. With `servedOrNull`, a server that does not serve the
   * resource (404) gives null instead of failing the wait: a probe for an API newer clusters have.
   */
  | { type: "list"; key: string; resource: ResourceKind; selectors: Selectors; servedOrNull?: boolean }
  /** A merge patch sent once per key; the view marks it done. Never sent by a read-only observation. */
  | { type: "patch"; key: string; resource: ResourceKind; name: string; namespace?: string; patch: unknown };

type GetNeed = Extract<Need, { type: "get" }>;

export interface View {
  /** Objects of each listed source; absent until that source's first list has arrived. */
  sources: Record<string, KubeObject[] | undefined>;
  /** Results of `get` (object or null) and `list` (array) needs by key. */
  fetched: Record<string, KubeObject | KubeObject[] | null | undefined>;
  /** Keys of patches that were applied. */
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

function isGone(error: ApiError): boolean {
  return error.status === 410 || error.reason === "Expired" || error.reason === "Gone";
}

/** Resolves after `ms`, or early (without error) when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    // Declared before `done` uses it: Pulumi's closure serializer resolves names in order.
    const pending: { timer?: NodeJS.Timeout } = {};
    const done = () => {
      clearTimeout(pending.timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    pending.timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
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
  const { client, waiter, evaluate } = options;
  const policy = options.retry ?? DEFAULT_RETRY;
  const started = Date.now();
  const firstRequest = client.requests;
  const stop = new AbortController();
  const caches = new Map<string, Map<string, KubeObject>>();
  const sourceNames = new Set<string>();
  const fetched: View["fetched"] = {};
  const patched: View["patched"] = {};
  const inFlight = new Set<string>();
  const reporter = progressReporter(options.progressIntervalMs ?? 1000, options.onProgress);
  let last: Evaluation<R> = { state: "waiting", message: `${waiter}: connecting` };
  let lastApiError: unknown;
  let finished = false;

  return new Promise((resolve, reject) => {
    // Declared before the closures that use them: Pulumi's closure serializer resolves names in order.
    const handles: { deadline?: NodeJS.Timeout; onAbort?: () => void } = {};
    const progressOf = (e: Evaluation<R>) => ({
      waiter,
      state: e.state,
      message: e.message,
      done: e.done,
      total: e.total,
      elapsedMs: Date.now() - started,
    });

    const finish = (error: WaitError | undefined, evaluation: Evaluation<R>) => {
      if (finished) return;
      finished = true;
      clearTimeout(handles.deadline);
      if (handles.onAbort) options.signal?.removeEventListener("abort", handles.onAbort);
      stop.abort();
      reporter.finish(progressOf(evaluation));
      if (error) return reject(error);
      resolve({
        evaluation,
        outcome: {
          result: evaluation.result as R,
          message: evaluation.message,
          elapsedMs: Date.now() - started,
          requests: client.requests - firstRequest,
        },
      });
    };

    const fail = (kind: WaitErrorKind, message: string) =>
      finish(waitError(kind, waiter, message, last.message), { ...last, state: "failed", message });

    handles.deadline = setTimeout(() => {
      const seconds = Math.round(options.timeoutMs / 100) / 10;
      const api = lastApiError ? ` (last API error: ${describeApiError(lastApiError)})` : "";
      fail("timeout", `timed out after ${seconds}s waiting for ${waiter}: ${last.message}${api}`);
    }, options.timeoutMs);
    handles.onAbort = () => fail("aborted", `wait for ${waiter} cancelled: ${last.message}`);
    if (options.signal?.aborted) return handles.onAbort();
    options.signal?.addEventListener("abort", handles.onAbort);

    /** Retries one request through transient failures until it succeeds, fails for good or the wait ends. */
    async function retrying<T>(
      what: string,
      call: (signal: AbortSignal) => Promise<T>,
    ): Promise<T | undefined> {
      for (let attempt = 0; !finished; attempt++) {
        try {
          const value = await call(stop.signal);
          lastApiError = undefined;
          return value;
        } catch (e) {
          if (finished) return undefined;
          if (!isRetryable(e)) {
            fail("failed", `${waiter}: cannot ${what}: ${describeApiError(e)}`);
            return undefined;
          }
          lastApiError = e;
          await pause(retryDelay(e, attempt, policy), stop.signal);
        }
      }
      return undefined;
    }

    function view(): View | undefined {
      const sources: View["sources"] = {};
      for (const name of sourceNames) {
        const cache = caches.get(name);
        if (!cache) return undefined;
        sources[name] = [...cache.values()];
      }
      return { sources, fetched, patched, elapsedMs: Date.now() - started };
    }

    function reevaluate(): void {
      if (finished) return;
      const current = view();
      if (!current) return;
      let evaluation: Evaluation<R>;
      try {
        evaluation = evaluate(current);
      } catch (e) {
        return fail("failed", `${waiter}: ${(e as Error).message}`);
      }
      last = evaluation;
      if (evaluation.state === "done" || (once && evaluation.state === "failed"))
        return finish(undefined, evaluation);
      if (evaluation.state === "failed") {
        return finish(waitError("failed", waiter, evaluation.message, evaluation.message), evaluation);
      }
      // Predicates ask only for what they lack, so an observation is complete when nothing is asked.
      const pending = (evaluation.needs ?? []).filter((n) => !(once && n.type === "patch"));
      if (once && pending.length === 0) return finish(undefined, evaluation);
      for (const need of pending) satisfy(need);
      reporter.report(progressOf(evaluation));
    }

    function satisfy(need: Need): void {
      if (need.type === "source") {
        if (!sourceNames.has(need.source.name)) startSource(need.source);
        return;
      }
      if (inFlight.has(need.key)) return;
      if (need.type === "patch" ? patched[need.key] : fetched[need.key] !== undefined) return;
      inFlight.add(need.key);
      const task =
        need.type === "get"
          ? retrying(`read ${need.resource.kind} ${need.name}`, (s) =>
              client.get(need.resource, need.name, need.namespace, s).then((o) => {
                fetched[need.key] = o ? kept(need, o) : null;
              }),
            )
          : need.type === "list"
            ? retrying(`list ${need.resource.plural}`, (s) =>
                client.list(need.resource, need.selectors, s).then(
                  (l) => {
                    fetched[need.key] = l.items;
                  },
                  (e: ApiError) => {
                    if (!need.servedOrNull || e.status !== 404) throw e;
                    fetched[need.key] = null;
                  },
                ),
              )
            : retrying(`patch ${need.resource.kind} ${need.name}`, (s) =>
                client.mergePatch(need.resource, need.name, need.namespace, need.patch, s).then(() => {
                  patched[need.key] = true;
                }),
              );
      void task.then(() => {
        inFlight.delete(need.key);
        reevaluate();
        if (need.type === "get" && fetched[need.key] === null && !once && !finished) follow(need);
      });
    }

    /** Existence checks of secrets keep nothing of their data. */
    function kept(need: GetNeed, object: KubeObject): KubeObject {
      return need.metadataOnly ? { metadata: object.metadata } : object;
    }

    /**
     * A read found nothing, yet the object may be created at any moment (by the program, an operator
     * or a controller): watch that one name until it appears, then hold it as the read's result.
     */
    function follow(need: GetNeed): void {
      const byName = { name: need.key, resource: need.resource, namespace: need.namespace };
      void watchSource({ ...byName, fieldSelector: `metadata.name=${need.name}` }, (cache) => {
        const [object] = cache.values();
        if (!object) return false;
        fetched[need.key] = kept(need, object);
        reevaluate();
        return true;
      });
    }

    function startSource(source: SourceSpec): void {
      sourceNames.add(source.name);
      void watchSource(source, (cache) => {
        caches.set(source.name, cache);
        reevaluate();
        return once;
      });
    }

    /** Lists and watches a source, handing its cache to `changed` after every change until that returns true. */
    async function watchSource(
      source: SourceSpec,
      changed: (cache: Map<string, KubeObject>) => boolean,
    ): Promise<void> {
      const what = `${source.resource.plural}${source.namespace ? ` in ${source.namespace}` : ""}`;
      let resourceVersion = "";
      let cache = new Map<string, KubeObject>();
      let attempt = 0;
      let stopped = false;
      while (!finished) {
        if (resourceVersion === "") {
          const list = await retrying(`list ${what}`, (s) => client.list(source.resource, source, s));
          if (!list) return;
          cache = new Map(list.items.map((o) => [objectKey(o), o]));
          resourceVersion = list.resourceVersion;
          if (changed(cache) || finished) return;
        }
        const current = new AbortController();
        const signal = AbortSignal.any([stop.signal, current.signal]);
        // Set by an ERROR event, which arrives inside a healthy HTTP response.
        let streamError: ApiError | undefined;
        let events = 0;
        const opened = Date.now();
        try {
          await client.watch(
            source.resource,
            {
              ...source,
              resourceVersion,
              timeoutSeconds: Math.max(1, Math.ceil((options.timeoutMs - (Date.now() - started)) / 1000)),
            },
            {
              onOpen: () => {
                attempt = 0;
                lastApiError = undefined;
              },
              onEvent: (event) => {
                if (finished || stopped || streamError) return;
                events++;
                const rv = event.object?.metadata?.resourceVersion;
                if (event.type === "ERROR") {
                  const status = event.object;
                  streamError = Object.assign(new Error(status.message ?? "watch error"), {
                    status: status.code,
                    reason: status.reason,
                  });
                  current.abort();
                  return;
                }
                if (rv) resourceVersion = rv;
                if (event.type === "BOOKMARK") return;
                if (event.type === "DELETED") cache.delete(objectKey(event.object));
                else cache.set(objectKey(event.object), event.object);
                if (changed(cache)) {
                  stopped = true;
                  current.abort();
                }
              },
            },
            signal,
          );
          if (finished || stopped) return;
          if (streamError) throw streamError;
          // A server that closes every watch at once must not turn this loop into a busy one.
          if (events === 0 && Date.now() - opened < 1000)
            await pause(retryDelay(undefined, attempt++, policy), stop.signal);
        } catch (e) {
          if (finished || stopped) return;
          const error = e as ApiError;
          if (isGone(error)) {
            resourceVersion = "";
            continue;
          }
          if (!isRetryable(error)) {
            return fail("failed", `${waiter}: cannot watch ${what}: ${describeApiError(error)}`);
          }
          lastApiError = error;
          await pause(retryDelay(error, attempt++, policy), stop.signal);
        }
      }
    }

    for (const source of options.sources) startSource(source);
    if (options.sources.length === 0) reevaluate();
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
