/**
 * The list/watch/cache half of the waiting core, as client-go's reflector: list a source, keep its
 * objects in a store, then watch from the list's resourceVersion and apply every event to the store.
 * Watches resume from the last resourceVersion seen (events and bookmarks), re-list on 410 Gone, and
 * retry 429, 5xx and network failures with backoff. What the objects mean is not its business: it hands
 * the store to whoever asked after every change (see `converge.ts` for the evaluation half). A source
 * whose resource only newer clusters serve says so itself (`servedOrNull`): one list both finds out and
 * seeds the store, instead of a probe before it.
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
  /** Milliseconds left before the wait's deadline. */
  remainingMs(): number;
  /** Ends the wait with a failure that retrying cannot change. */
  fail(message: string): void;
  /** The latest transient failure, or undefined once a request got through, for the timeout message. */
  transient(error: unknown): void;
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
  const what = `${source.resource.plural}${source.namespace ? ` in ${source.namespace}` : ""}`;
  const ended = () => session.signal.aborted;
  let resourceVersion = "";
  let store: Store = new Map();
  let attempt = 0;
  let stopped = false;
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
    const opened = clock.now();
    try {
      await client.watch(
        source.resource,
        { ...source, resourceVersion, timeoutSeconds: Math.max(1, Math.ceil(session.remainingMs() / 1000)) },
        {
          onOpen: () => session.transient(undefined),
          onEvent: (event) => {
            if (ended() || stopped || streamError) return;
            // Backoff restarts once a watch delivers, not when it opens: a server may accept every watch
            // and close it at once.
            if (events++ === 0) attempt = 0;
            if (event.type === "ERROR") {
              const status = event.object;
              streamError = Object.assign(new Error(status.message ?? "watch error"), {
                status: status.code,
                reason: status.reason,
              });
              current.abort();
              return;
            }
            const rv = event.object?.metadata?.resourceVersion;
            if (rv) resourceVersion = rv;
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
      if (ended() || stopped) return;
      if (streamError) throw streamError;
      // A server that closes every watch at once must not turn this loop into a busy one.
      if (events === 0 && clock.now() - opened < SHORT_WATCH_MS)
        await clock.sleep(retryDelay(undefined, attempt++, policy), session.signal);
    } catch (e) {
      if (ended() || stopped) return;
      const error = e as ApiError;
      // Served at the list, gone since (its CRD deleted): as good as a 404 on the list.
      if (isNotServed(source, error)) {
        changed(null);
        return;
      }
      if (isGone(error)) {
        resourceVersion = "";
        continue;
      }
      if (!isRetryable(error)) {
        return session.fail(`${session.waiter}: cannot watch ${what}: ${describeApiError(error)}`);
      }
      session.transient(error);
      await clock.sleep(retryDelay(error, attempt++, policy), session.signal);
    }
  }
}
