/**
 * The list/watch/cache half of the waiting core, as client-go's reflector: list a source, keep its
 * objects in a store, then watch from the list's resourceVersion and apply every event to the store.
 * Watches resume from the last resourceVersion seen (events and bookmarks), re-list on 410 Gone, and
 * retry 429, 5xx and network failures with backoff. Each watch is bounded and watched for silence: a
 * silent one (a connection that died without a word, half-open behind a load balancer, or a proxy that
 * holds streamed answers until they end) is replaced within minutes by a list, then a watch, so that a
 * wait behind such a proxy still learns what the cluster did, by polling. What the objects mean is not
 * its business: it hands the store to whoever asked after every change (see `converge.ts` for the
 * evaluation half). A source whose resource only newer clusters serve says so itself
 * (`servedOrNull`): one list both finds out and seeds the store, instead of a probe before it.
 */
import { ApiClient, Selectors } from "./api";
import { Clock } from "./clock";
import { KubeObject, ResourceKind, objectKey } from "./kinds";
import { ApiError, describeApiError, isRetryable, RetryPolicy, retryDelay } from "./retry";

export interface SourceSpec extends Selectors {
  /** How the predicate finds this source's objects in the view. */
  name: string;
  resource: ResourceKind;
  /**
   * The resource is one that older clusters do not serve: a 404 on its list or watch hands null
   * instead of a store (once, without retrying) rather than failing the wait. Only 404 means that:
   * 403 still fails, 410 still re-lists, 429, 5xx and network failures are still retried.
   */
  servedOrNull?: boolean;
}

/** A source's objects by `objectKey`. */
export type Store = Map<string, KubeObject>;

/** What the requests of one wait share: the client, the clock, the retry policy and the wait's end. */
export interface Session {
  /** Names the wait in failure messages. */
  waiter: string;
  client: ApiClient;
  clock: Clock;
  policy: RetryPolicy;
  /** Aborted when the wait ends: every request and pause of the wait stops then. */
  signal: AbortSignal;
  /** Ends the wait with a failure that retrying cannot change. */
  fail(message: string): void;
  /** The latest transient failure, or undefined once a request got through, for the timeout message. */
  transient(error: unknown): void;
  /**
   * How many watches of `what` (`nodes`, `machinesets in openshift-machine-api`) went silent in a row:
   * called after each, and with 0 once a watch of it is heard again.
   */
  silent?(what: string, times: number): void;
  /** Jitter of watch timeouts and backoff, 0..1 (Math.random unless a test fixes it). */
  random?: () => number;
}

/**
 * Watch timeouts are random in [5, 10) minutes, as client-go's `Reflector.watch` picks them
 * (`minWatchTimeout * (rand.Float64() + 1.0)`, `defaultMinWatchTimeout`): short enough that a watch the
 * server forgot is replaced, spread so that many clients do not re-watch at once. Never the wait's
 * whole deadline.
 */
export const MIN_WATCH_TIMEOUT_MS = 5 * 60_000;

/**
 * A watch that asks for bookmarks (`allowWatchBookmarks`) hears from kube-apiserver about once a
 * minute even when nothing changes (the cacher's bookmark frequency); one silent for this long is
 * taken as broken and replaced by a list, then a watch from that list, as client-go's reflector lists
 * again after a watch that failed (`Reflector.Run` calls ListAndWatch again): resuming from the last
 * resourceVersion would miss, behind a proxy that buffers streamed answers, every change a list shows
 * at once.
 */
export const WATCH_IDLE_MS = 150_000;

/** The watch's timeoutSeconds: what the server is asked for, and when the client gives up on it. */
export function watchTimeoutSeconds(random: () => number = Math.random): number {
  return Math.floor((MIN_WATCH_TIMEOUT_MS / 1000) * (1 + random()));
}

function isNotServed(source: SourceSpec, error: unknown): boolean {
  return source.servedOrNull === true && (error as ApiError | undefined)?.status === 404;
}

function isGone(error: ApiError): boolean {
  return error.status === 410 || error.reason === "Expired" || error.reason === "Gone";
}

/** Retries one request through transient failures until it succeeds, fails for good or the wait ends. */
export async function retrying<T>(
  session: Session,
  what: string,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T | undefined> {
  for (let attempt = 0; !session.signal.aborted; attempt++) {
    try {
      const value = await call(session.signal);
      session.transient(undefined);
      return value;
    } catch (e) {
      if (session.signal.aborted) return undefined;
      if (!isRetryable(e)) {
        session.fail(`${session.waiter}: cannot ${what}: ${describeApiError(e)}`);
        return undefined;
      }
      session.transient(e);
      await session.clock.sleep(retryDelay(e, attempt, session.policy), session.signal);
    }
  }
  return undefined;
}

/** A watch that closes this soon without an event counts as a failed attempt, so it backs off. */
const SHORT_WATCH_MS = 1000;

/**
 * Lists and watches a source, handing its store to `changed` after the list and after every event
 * until `changed` returns true or the wait ends; null, and nothing after it, when a `servedOrNull`
 * source is not served.
 */
export async function reflect(
  session: Session,
  source: SourceSpec,
  changed: (store: Store | null) => boolean,
): Promise<void> {
  const { client, clock, policy } = session;
  const random = session.random ?? Math.random;
  const what = `${source.resource.plural}${source.namespace ? ` in ${source.namespace}` : ""}`;
  const ended = () => session.signal.aborted;
  let resourceVersion = "";
  let store: Store = new Map();
  let attempt = 0;
  let stopped = false;
  // Watches of this source that went silent in a row.
  let silences = 0;
  while (!ended()) {
    if (resourceVersion === "") {
      const list = await retrying(session, `list ${what}`, (s) =>
        client.list(source.resource, source, s).catch((e: unknown) => {
          if (isNotServed(source, e)) return null;
          throw e;
        }),
      );
      if (list === null) changed(null);
      if (!list) return;
      store = new Map(list.items.map((o) => [objectKey(o), o]));
      resourceVersion = list.resourceVersion;
      if (changed(store) || ended()) return;
    }
    const current = new AbortController();
    const signal = AbortSignal.any([session.signal, current.signal]);
    // Set by an ERROR event, which arrives inside a healthy HTTP response.
    let streamError: ApiError | undefined;
    let events = 0;
    // Set when the client ends a watch, not retried: one that outlived its timeout is resumed, one
    // that went silent is listed again.
    let replaced: "timeout" | "silent" | undefined;
    const replace = (why: "timeout" | "silent") => () => {
      replaced = why;
      current.abort();
    };
    const opened = clock.now();
    const timeoutSeconds = watchTimeoutSeconds(random);
    // The server should end the watch at timeoutSeconds; a connection that no longer reaches it
    // never does, so the client ends it then, as client-go's request timeout does.
    const cancelBound = clock.after(timeoutSeconds * 1000, replace("timeout"));
    let cancelIdle = clock.after(WATCH_IDLE_MS, replace("silent"));
    const heard = () => {
      cancelIdle();
      cancelIdle = clock.after(WATCH_IDLE_MS, replace("silent"));
      if (silences > 0) session.silent?.(what, (silences = 0));
    };
    let failure: unknown;
    try {
      await client.watch(
        source.resource,
        { ...source, resourceVersion, timeoutSeconds },
        {
          onOpen: () => session.transient(undefined),
          onEvent: (event) => {
            if (ended() || stopped || streamError || replaced) return;
            heard();
            if (event.type === "ERROR") {
              const status = event.object;
              streamError = Object.assign(new Error(status.message ?? "watch error"), {
                status: status.code,
                reason: status.reason,
              });
              current.abort();
              return;
            }
            // An object without metadata is skipped, as client-go's watchHandler skips an event whose
            // object meta.Accessor cannot read ("unable to understand watch event").
            const meta = event.object?.metadata;
            if (!meta) return;
            // Backoff restarts once a watch delivers, not when it opens (a server may accept every
            // watch and close it at once) nor after a list (under a 410 storm every list succeeds).
            if (events++ === 0) attempt = 0;
            if (meta.resourceVersion) resourceVersion = meta.resourceVersion;
            if (event.type === "BOOKMARK") return;
            if (event.type === "DELETED") store.delete(objectKey(event.object));
            else store.set(objectKey(event.object), event.object);
            if (changed(store)) {
              stopped = true;
              current.abort();
            }
          },
        },
        signal,
      );
    } catch (e) {
      failure = e;
    } finally {
      cancelBound();
      cancelIdle();
    }
    if (ended() || stopped) return;
    if (replaced === "silent") {
      session.silent?.(what, ++silences);
      resourceVersion = "";
    }
    if (replaced) continue;
    const error = (streamError ?? failure) as ApiError | undefined;
    if (!error) {
      // A server that closes every watch at once must not turn this loop into a busy one.
      if (events === 0 && clock.now() - opened < SHORT_WATCH_MS)
        await clock.sleep(retryDelay(undefined, attempt++, policy, random), session.signal);
      continue;
    }
    // Served at the list, gone since (its CRD deleted): as good as a 404 on the list.
    if (isNotServed(source, error)) {
      changed(null);
      return;
    }
    if (!isGone(error) && !isRetryable(error)) {
      return session.fail(`${session.waiter}: cannot watch ${what}: ${describeApiError(error)}`);
    }
    // After a 410 the source is listed again, after a pause that grows while the server keeps
    // answering 410, as client-go's `Reflector.Run` lists again only through its backoff manager: a
    // persistent 410 costs a few requests a minute, not hundreds a second.
    if (isGone(error)) resourceVersion = "";
    session.transient(error);
    await clock.sleep(retryDelay(error, attempt++, policy, random), session.signal);
  }
}
