/**
 * Failure injection for the API server, in process (this object) and over HTTP (`POST /simulator/faults`).
 * Cluster-level faults (a degraded node, a failed CSV, file drift) belong to the controllers; they are
 * registered here as named handlers so one control endpoint reaches both.
 */

/** A cluster-level fault: receives the request's parameters, returns something JSON-serialisable. */
export type FaultHandler = (params: Record<string, unknown>) => unknown;

/** What the server exposes to the fault controls; implemented by ApiServer. */
export interface FaultTarget {
  /** Ends every open watch stream; returns how many were open. */
  dropWatches(): number;
  /** Resets the connection of every open watch stream; returns how many were open. */
  resetWatches(): number;
  /** Stops accepting connections (and drops open ones) for `ms` real milliseconds, then listens again on the same port. */
  refuseConnections(ms: number): Promise<void>;
  /** Replaces the bearer token (the old one is rejected with 401); returns the new token and kubeconfig. */
  rotateToken(): { token: string; kubeconfig: string };
}

export type ErrorCode = 429 | 500 | 503;

/** The answer to a control request, and what to do once it has been delivered. */
export interface ControlAnswer {
  body: unknown;
  afterAnswer?: () => void;
}

export interface ServerFaultsStatus {
  latencyMs: number;
  pendingErrors: number;
  /** Milliseconds left of an error storm (`failRequestsFor`), 0 when none. */
  errorStormMs: number;
  errorCode: ErrorCode;
  pendingWatchExpiries: number;
  /** Every watch that resumes from a resourceVersion gets 410 until `reset`. */
  goneStorm: boolean;
  pendingSilentWatches: number;
  pendingResets: number;
  refusing: boolean;
  clusterFaults: string[];
}

export class ServerFaults {
  private latency = 0;
  private errorsLeft = 0;
  private stormUntil = 0;
  private errorCode: ErrorCode = 503;
  private retryAfter = 1;
  private watchExpiries = 0;
  private goneStorm = false;
  private silentWatches = 0;
  private resets = 0;
  private refusing = false;
  private readonly handlers = new Map<string, FaultHandler>();

  /** `now`: real milliseconds, which storms are measured in (as latency and refused connections). */
  constructor(
    private readonly target: FaultTarget,
    private readonly now: () => number = Date.now,
  ) {}

  /** Ends every open watch; clients see the stream close and must re-watch. */
  dropWatches(): number {
    return this.target.dropWatches();
  }

  /** Resets the connection of every open watch; clients see ECONNRESET and must re-watch. */
  resetWatches(): number {
    return this.target.resetWatches();
  }

  /** The next `count` watches that resume from a resourceVersion get `410 Expired`. */
  expireNextWatchResume(count = 1): void {
    this.watchExpiries += count;
  }

  /**
   * Every watch that resumes from a resourceVersion gets `410 Expired` until `reset`, as from an API
   * server whose watch cache cannot serve the version the client lists at (a 410 storm): whoever
   * re-lists at once on 410 loops. The 410 arrives as an ERROR event in a 200 stream, as kube-apiserver
   * sends it (the watch cache's `newErrWatcher`).
   */
  startGoneStorm(): void {
    this.goneStorm = true;
  }

  /**
   * The next `count` watches are accepted and then hear nothing: no event, no bookmark, no end, as
   * behind a half-open connection (a load balancer that dropped the flow without a reset).
   */
  silenceNextWatches(count = 1): void {
    this.silentWatches += count;
  }

  /**
   * The connections of the next `count` API requests are reset before any answer, as a load balancer
   * or an API server restarting mid-request drops them: clients see ECONNRESET.
   */
  resetNextRequests(count = 1): void {
    this.resets = Math.max(0, Math.floor(count));
  }

  /** The next `count` API requests are answered with `code` (429 carries `Retry-After`). */
  failNextRequests(count: number, code: ErrorCode = 503, retryAfterSeconds = 1): void {
    this.errorsLeft = Math.max(0, Math.floor(count));
    this.errorCode = code;
    this.retryAfter = retryAfterSeconds;
  }

  /**
   * Every API request for the next `seconds` (real time) is answered with `code` and its Retry-After,
   * as from an API server whose priority and fairness queues are full for a while: a storm whose
   * length, not its number of requests, decides whether a client's tries outlast it.
   */
  failRequestsFor(seconds: number, code: ErrorCode = 429, retryAfterSeconds = 1): void {
    this.stormUntil = this.now() + Math.max(0, seconds) * 1000;
    this.errorCode = code;
    this.retryAfter = retryAfterSeconds;
  }

  /** Delays every response by `ms` milliseconds (0 to stop). */
  setLatency(ms: number): void {
    this.latency = Math.max(0, ms);
  }

  /** Refuses connections for `seconds`, resolving when the server listens again. */
  async refuseConnections(seconds: number): Promise<void> {
    if (this.refusing) throw new Error("already refusing connections");
    this.refusing = true;
    try {
      await this.target.refuseConnections(Math.max(0, seconds * 1000));
    } finally {
      this.refusing = false;
    }
  }

  /**
   * Renews the credentials, as an expired `oc login` token is renewed: the old token gets 401
   * Unauthorized from now on. Returns the new token and a kubeconfig with it (also written to the
   * server's kubeconfig file).
   */
  rotateToken(): { token: string; kubeconfig: string } {
    return this.target.rotateToken();
  }

  /** Registers (or replaces) a named cluster-level fault. */
  register(name: string, handler: FaultHandler): void {
    this.handlers.set(name, handler);
  }

  /** Registers every entry of a map of cluster-level faults, as the controllers expose them. */
  registerAll(handlers: Record<string, FaultHandler>): void {
    for (const [name, handler] of Object.entries(handlers)) this.register(name, handler);
  }

  /** Runs a named cluster-level fault. */
  inject(name: string, params: Record<string, unknown> = {}): unknown {
    const handler = this.handlers.get(name);
    if (!handler) throw new Error(`unknown fault "${name}"; known: ${this.names().join(", ")}`);
    return handler(params);
  }

  /** Clears latency, pending errors, an error storm and resets, pending watch expiries, a 410 storm and pending silent watches. */
  reset(): void {
    this.latency = 0;
    this.errorsLeft = 0;
    this.stormUntil = 0;
    this.resets = 0;
    this.watchExpiries = 0;
    this.goneStorm = false;
    this.silentWatches = 0;
  }

  names(): string[] {
    return [...BUILTIN_FAULTS, ...this.handlers.keys()];
  }

  status(): ServerFaultsStatus {
    return {
      latencyMs: this.latency,
      pendingErrors: this.errorsLeft,
      errorStormMs: Math.max(0, this.stormUntil - this.now()),
      errorCode: this.errorCode,
      pendingWatchExpiries: this.watchExpiries,
      goneStorm: this.goneStorm,
      pendingSilentWatches: this.silentWatches,
      pendingResets: this.resets,
      refusing: this.refusing,
      clusterFaults: [...this.handlers.keys()],
    };
  }

  /** For the server: the latency to add now. */
  get latencyMs(): number {
    return this.latency;
  }

  /** For the server: the error of a storm under way, else consumes one injected error, if any is pending. */
  takeError(): { code: ErrorCode; retryAfterSeconds: number } | undefined {
    if (this.now() < this.stormUntil) return { code: this.errorCode, retryAfterSeconds: this.retryAfter };
    if (this.errorsLeft <= 0) return undefined;
    this.errorsLeft--;
    return { code: this.errorCode, retryAfterSeconds: this.retryAfter };
  }

  /** For the server: consumes one pending connection reset, if any. */
  takeReset(): boolean {
    if (this.resets <= 0) return false;
    this.resets--;
    return true;
  }

  /** For the server: consumes one pending watch expiry, if any; always true during a 410 storm. */
  takeWatchExpiry(): boolean {
    if (this.goneStorm) return true;
    if (this.watchExpiries <= 0) return false;
    this.watchExpiries--;
    return true;
  }

  /** For the server: consumes one pending silent watch, if any. */
  takeSilentWatch(): boolean {
    if (this.silentWatches <= 0) return false;
    this.silentWatches--;
    return true;
  }

  /**
   * Handles a control request body: `{"fault": "<name>", ...params}`. Built-in names: `dropWatches`,
   * `resetWatches`, `expireWatch` (`count`), `goneStorm`, `silentWatch` (`count`), `errors` (`count`, or `seconds` for a storm, `code`, `retryAfterSeconds`), `resetRequests` (`count`), `latency` (`ms`),
   * `refuseConnections` (`seconds`), `rotateToken`, `reset`, `status`; any other name goes to a
   * registered handler.
   */
  async control(body: Record<string, unknown>): Promise<ControlAnswer> {
    const name = body.fault;
    if (typeof name !== "string") throw new Error('the body needs a "fault" name');
    const num = (key: string, fallback: number): number => {
      const value = body[key] ?? fallback;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
        throw new Error(`"${key}" must be a non-negative number`);
      return value;
    };
    switch (name) {
      case "dropWatches":
        return { body: { dropped: this.dropWatches() } };
      case "resetWatches":
        return { body: { reset: this.resetWatches() } };
      case "expireWatch":
        this.expireNextWatchResume(num("count", 1));
        return { body: this.status() };
      case "goneStorm":
        this.startGoneStorm();
        return { body: this.status() };
      case "silentWatch":
        this.silenceNextWatches(num("count", 1));
        return { body: this.status() };
      case "errors": {
        const code = num("code", 503);
        if (code !== 429 && code !== 500 && code !== 503) throw new Error('"code" must be 429, 500 or 503');
        if (body.seconds !== undefined)
          this.failRequestsFor(num("seconds", 0), code, num("retryAfterSeconds", 1));
        else this.failNextRequests(num("count", 1), code, num("retryAfterSeconds", 1));
        return { body: this.status() };
      }
      case "resetRequests":
        this.resetNextRequests(num("count", 1));
        return { body: this.status() };
      case "latency":
        this.setLatency(num("ms", 0));
        return { body: this.status() };
      case "refuseConnections": {
        const seconds = num("seconds", 1);
        if (this.refusing) throw new Error("already refusing connections");
        return {
          body: { refusingForSeconds: seconds },
          // The refusal would cut this very connection: it starts once the answer is out.
          afterAnswer: () =>
            void this.refuseConnections(seconds).catch((error) =>
              console.error("simulator: refusing connections failed:", error),
            ),
        };
      }
      case "rotateToken":
        return { body: this.rotateToken() };
      case "reset":
        this.reset();
        return { body: this.status() };
      case "status":
        return { body: this.status() };
      default: {
        const params = { ...body };
        delete params.fault;
        return { body: { result: (await this.inject(name, params)) ?? null } };
      }
    }
  }
}

const BUILTIN_FAULTS = [
  "dropWatches",
  "resetWatches",
  "expireWatch",
  "goneStorm",
  "silentWatch",
  "errors",
  "resetRequests",
  "latency",
  "refuseConnections",
  "rotateToken",
  "reset",
  "status",
];
