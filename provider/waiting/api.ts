/**
 * A small Kubernetes API client for waiting: list, get, merge-patch and a streaming watch. Credentials
 * and TLS come from the kubeconfig (kubeconfig.ts), or from @kubernetes/client-node's KubeConfig when a
 * plugin or a proxy is involved; the requests themselves go through node:https
 * because a waiter needs what the generated clients hide: the Retry-After header of a 429, the
 * resourceVersion of a list, and each watch line as soon as it arrives. Every request is counted, and
 * tried again as client-go's rest client tries it (retry.ts, `sendRetried`).
 */
import { request as httpRequest, IncomingMessage, RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { Clock, systemClock } from "./clock";
import { KubeObject, ResourceKind, resourcePath } from "./kinds";
import { staticConnection } from "./kubeconfig";
import { apiError, ApiError, parseRetryAfter, sendRetried } from "./retry";

export interface Selectors {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject & { code?: number; reason?: string; message?: string };
}

export interface WatchHandlers {
  /** The server accepted the watch (HTTP 200). */
  onOpen?: () => void;
  onEvent: (event: WatchEvent) => void;
}

export interface ApiClient {
  list(resource: ResourceKind, selectors: Selectors, signal?: AbortSignal): Promise<ListResult>;
  /** undefined when the object does not exist. */
  get(
    resource: ResourceKind,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<KubeObject | undefined>;
  /** A JSON merge patch, recorded as `fieldManager`'s (the API server's default otherwise). */
  mergePatch(
    resource: ResourceKind,
    name: string,
    namespace: string | undefined,
    patch: unknown,
    signal?: AbortSignal,
    fieldManager?: string,
  ): Promise<KubeObject>;
  /**
   * Deletes an object (foreground, so dependents go first); false when it was already gone. With
   * `preconditions`, the API server refuses (409) when the object is no longer that one or has changed.
   */
  delete(
    resource: ResourceKind,
    name: string,
    namespace: string | undefined,
    signal?: AbortSignal,
    preconditions?: { uid?: string; resourceVersion?: string },
  ): Promise<boolean>;
  /**
   * Streams events until the server ends the response (resolves) or the connection fails (rejects).
   * An HTTP error status rejects before any event.
   */
  watch(
    resource: ResourceKind,
    selectors: Selectors & { resourceVersion: string; timeoutSeconds?: number },
    handlers: WatchHandlers,
    signal?: AbortSignal,
  ): Promise<void>;
  /** Requests sent so far, retries and reconnects included. */
  readonly requests: number;
}

export interface ApiClientOptions {
  /** Called for every request sent, e.g. to count them per verb. */
  onRequest?: (method: string, path: string) => void;
  /** Gives up on a non-watch request that has not answered in this time. */
  requestTimeoutMs?: number;
  /** How a request pauses before it is sent again (the system clock unless a test gives one). */
  clock?: Clock;
}

/** A request to send: its line, body and headers, what cancels it, and whether it opens a watch. */
interface Outgoing {
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
  signal?: AbortSignal;
  watch: boolean;
}

interface Connection {
  server: URL;
  options(): Promise<RequestOptions>;
  /** After a 401 to a request sent with `sent` as its Authorization: whether a new token is at hand. */
  renewed?(sent: string | undefined): boolean;
}

function connectionFor(kubeconfig: string, clock: Clock): Connection {
  const given = staticConnection(kubeconfig, () => clock.now());
  if (given) return { server: given.server, options: async () => given.options(), renewed: given.renewed };
  // An exec plugin, an auth provider or a proxy: the client computes the credentials and the agent.
  // Loaded lazily so that serialized providers require the package at run time, not capture it.
  const { KubeConfig } = require("@kubernetes/client-node") as typeof import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  // There is one: staticConnection throws without it, and the client finds it by the same names.
  const cluster = kc.getCurrentCluster()!;
  // client-node refuses an http:// server unless TLS verification is off, though no TLS is involved
  // there: a `kubectl proxy` or `oc proxy` kubeconfig names one and kubectl accepts it as it is.
  if (cluster.server.startsWith("http:")) Object.assign(cluster, { skipTLSVerify: true });
  return {
    server: new URL(cluster.server),
    options: async () => {
      const opts: RequestOptions = {};
      // Applied per request so that expiring credentials (exec plugins, token files) are refreshed.
      await kc.applyToHTTPSOptions(opts as import("node:https").RequestOptions);
      return opts;
    },
  };
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

function networkError(error: NodeJS.ErrnoException): ApiError {
  return apiError(error.message, { code: error.code });
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (c: Buffer) => chunks.push(c));
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    // Node closes a response after its end, so a close that settles this came first: the connection
    // was cut. (Unlistened, the response's own "aborted" error is not raised.)
    response.on("close", () =>
      reject(apiError("connection closed before the response ended", { code: "ECONNRESET" })),
    );
  });
}

function statusError(response: IncomingMessage, body: string): ApiError {
  let status: { reason?: string; message?: string } = {};
  try {
    status = JSON.parse(body) as typeof status;
  } catch {
    status = { message: body.slice(0, 200) };
  }
  return apiError(status.message || response.statusMessage || `HTTP ${response.statusCode}`, {
    status: response.statusCode,
    reason: status.reason,
    // Node keeps the first of repeated Retry-After headers.
    retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
  });
}

export function createApiClient(kubeconfig: string, clientOptions: ApiClientOptions = {}): ApiClient {
  const clock = clientOptions.clock ?? systemClock;
  const connection = connectionFor(kubeconfig, clock);
  const requestTimeoutMs = clientOptions.requestTimeoutMs ?? 30_000;
  const state = { requests: 0 };

  /** Sends a request again while the per-request policy says so, pausing on the client's clock. */
  function retried<T>(
    request: { method: string; path: string; watch?: boolean },
    signal: AbortSignal | undefined,
    once: () => Promise<T>,
  ): Promise<T> {
    return sendRetried(request, once, {
      sleep: (ms) => clock.sleep(ms, signal),
      aborted: () => signal?.aborted === true,
    });
  }

  /**
   * Sends a request once; a 401 to a token read from a file that now holds another one (rotated
   * before the token's next read: TOKEN_FILE_REREAD_MS) is sent once more with the new token.
   */
  async function send(outgoing: Outgoing): Promise<IncomingMessage> {
    // Before the credentials: an exec plugin's are not computed for a request nobody waits for.
    if (outgoing.signal?.aborted) throw apiError("aborted", { code: "ABORTED" });
    const opts = await connection.options();
    const response = await sendWith(opts, outgoing);
    const sent = (opts.headers as Record<string, string> | undefined)?.Authorization;
    if (response.statusCode !== 401 || !connection.renewed?.(sent)) return response;
    response.resume();
    return sendWith(await connection.options(), outgoing);
  }

  async function sendWith(opts: RequestOptions, outgoing: Outgoing): Promise<IncomingMessage> {
    const { method, path, body, headers, signal, watch } = outgoing;
    if (signal?.aborted) throw apiError("aborted", { code: "ABORTED" });
    const url = connection.server;
    const basePath = url.pathname.replace(/\/$/, "");
    const isHttps = url.protocol === "https:";
    state.requests++;
    clientOptions.onRequest?.(method, path);
    return new Promise((resolve, reject) => {
      const req = (isHttps ? httpsRequest : httpRequest)({
        ...opts,
        protocol: url.protocol,
        // An IPv6 address comes bracketed, as a URL writes it; the connection wants it bare.
        hostname: url.hostname.replace(/[[\]]/g, ""),
        // Empty for the scheme's default port, which Node then uses.
        port: url.port,
        method,
        path: basePath + path,
        headers: {
          ...(opts.headers as Record<string, string>),
          Accept: "application/json",
          ...headers,
          // Node frames a DELETE's body neither by length nor in chunks unless told its length.
          ...(body !== undefined ? { "Content-Length": String(Buffer.byteLength(body)) } : {}),
        },
      });
      // Not the request's own `signal` option: over plain HTTP, Node emits the AbortError it raises on
      // a response stream nobody listens to any more, which kills the process. Destroyed without an
      // error, the request and its response just close, and whoever aborted knows why.
      const abort = () => {
        req.destroy();
        reject(apiError("aborted", { code: "ABORTED" }));
      };
      signal?.addEventListener("abort", abort);
      req.on("close", () => signal?.removeEventListener("abort", abort));
      req.on("error", (e: NodeJS.ErrnoException) => reject(networkError(e)));
      req.on("response", resolve);
      if (watch) {
        // A watch may stay silent for long: let TCP notice a peer that vanished instead of hanging.
        req.on("socket", (s) => s.setKeepAlive(true, 15_000));
      } else {
        req.setTimeout(requestTimeoutMs, () =>
          req.destroy(
            Object.assign(new Error(`no answer within ${requestTimeoutMs} ms`), { code: "ETIMEDOUT" }),
          ),
        );
      }
      req.end(body);
    });
  }

  async function json(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; value: unknown }> {
    return retried({ method, path }, signal, async () => {
      const response = await send({ method, path, body, headers, signal, watch: false });
      let text: string;
      try {
        text = await readBody(response);
      } catch (e) {
        throw networkError(e as NodeJS.ErrnoException);
      }
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        if (status === 404 && (method === "GET" || method === "DELETE")) return { status, value: undefined };
        throw statusError(response, text);
      }
      return { status, value: JSON.parse(text) as unknown };
    });
  }

  return {
    get requests() {
      return state.requests;
    },

    async list(resource, selectors, signal) {
      const path =
        resourcePath(resource, selectors.namespace) +
        query({ labelSelector: selectors.labelSelector, fieldSelector: selectors.fieldSelector });
      const { status, value } = await json("GET", path, undefined, {}, signal);
      if (status === 404) {
        throw apiError(`the server does not serve ${resource.plural}.${resource.group || "core"}`, {
          status: 404,
          reason: "NotFound",
        });
      }
      const list = value as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
      return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? "" };
    },

    async get(resource, name, namespace, signal) {
      const { value } = await json("GET", resourcePath(resource, namespace, name), undefined, {}, signal);
      return value as KubeObject | undefined;
    },

    async mergePatch(resource, name, namespace, patch, signal, fieldManager) {
      const { value } = await json(
        "PATCH",
        resourcePath(resource, namespace, name) + query({ fieldManager }),
        JSON.stringify(patch),
        { "Content-Type": "application/merge-patch+json" },
        signal,
      );
      return value as KubeObject;
    },

    async delete(resource, name, namespace, signal, preconditions) {
      const { status } = await json(
        "DELETE",
        resourcePath(resource, namespace, name),
        JSON.stringify({
          kind: "DeleteOptions",
          apiVersion: "v1",
          propagationPolicy: "Foreground",
          ...(preconditions ? { preconditions } : {}),
        }),
        { "Content-Type": "application/json" },
        signal,
      );
      return status !== 404;
    },

    async watch(resource, selectors, handlers, signal) {
      const path =
        resourcePath(resource, selectors.namespace) +
        query({
          watch: "true",
          allowWatchBookmarks: "true",
          resourceVersion: selectors.resourceVersion,
          labelSelector: selectors.labelSelector,
          fieldSelector: selectors.fieldSelector,
          timeoutSeconds: selectors.timeoutSeconds,
        });
      // Tried again until the server accepts the watch; what happens after that is the reflector's.
      const response = await retried({ method: "GET", path, watch: true }, signal, async () => {
        const answer = await send({ method: "GET", path, headers: {}, signal, watch: true });
        if (answer.statusCode === 200) return answer;
        let text = "";
        try {
          text = await readBody(answer);
        } catch {
          // The status code alone still says what went wrong.
        }
        throw statusError(answer, text);
      });
      handlers.onOpen?.();
      await new Promise<void>((resolve, reject) => {
        let buffer = "";
        // The first call settles the watch; a cancelled one ends quietly.
        const finish = (error?: ApiError) => (error && !signal?.aborted ? reject(error) : resolve());
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          buffer += chunk;
          let newline = buffer.indexOf("\n");
          while (newline >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            newline = buffer.indexOf("\n");
            if (line === "") continue;
            let event: WatchEvent;
            try {
              event = JSON.parse(line) as WatchEvent;
            } catch {
              // As client-go's watch decoder reports it (rest/request.go newStreamWatcher: a 500, so the
              // reflector watches again). Settled before the destroy, whose close would say reset.
              finish(
                apiError(`unparsable watch event: ${line.slice(0, 100)}`, {
                  status: 500,
                  reason: "InternalError",
                  code: "EBADEVENT",
                }),
              );
              response.destroy();
              return;
            }
            handlers.onEvent(event);
          }
        });
        response.on("end", () => finish());
        // After an end Node closes the response: a close before it means the connection was cut.
        response.on("close", () => finish(apiError("watch connection closed", { code: "ECONNRESET" })));
      });
    },
  };
}
