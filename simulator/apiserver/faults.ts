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
  errorCode: ErrorCode;
  pendingWatchExpiries: number;
  refusing: boolean;
  clusterFaults: string[];
}

export class ServerFaults {
  private latency = 0;
  private errorsLeft = 0;
  private errorCode: ErrorCode = 503;
  private retryAfter = 1;
  private watchExpiries = 0;
  private refusing = false;
  private readonly handlers = new Map<string, FaultHandler>();

  constructor(private readonly target: FaultTarget) {}

  /** Ends every open watch; clients see the stream close and must re-watch. */
  dropWatches(): number {
    return this.target.dropWatches();
  }

  /** The next `count` watches that resume from a resourceVersion get `410 Expired`. */
  expireNextWatchResume(count = 1): void {
    this.watchExpiries += count;
  }

  /** The next `count` API requests are answered with `code` (429 carries `Retry-After`). */
  failNextRequests(count: number, code: ErrorCode = 503, retryAfterSeconds = 1): void {
    this.errorsLeft = Math.max(0, Math.floor(count));
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

  /** Clears latency, pending errors and pending watch expiries. */
  reset(): void {
    this.latency = 0;
    this.errorsLeft = 0;
    this.watchExpiries = 0;
  }

  names(): string[] {
    return [...BUILTIN_FAULTS, ...this.handlers.keys()];
  }

  status(): ServerFaultsStatus {
    return {
      latencyMs: this.latency,
      pendingErrors: this.errorsLeft,
      errorCode: this.errorCode,
      pendingWatchExpiries: this.watchExpiries,
      refusing: this.refusing,
      clusterFaults: [...this.handlers.keys()],
    };
  }

  /** For the server: the latency to add now. */
  get latencyMs(): number {
    return this.latency;
  }

  /** For the server: consumes one injected error, if any is pending. */
  takeError(): { code: ErrorCode; retryAfterSeconds: number } | undefined {
    if (this.errorsLeft <= 0) return undefined;
    this.errorsLeft--;
    return { code: this.errorCode, retryAfterSeconds: this.retryAfter };
  }

  /** For the server: consumes one pending watch expiry, if any. */
  takeWatchExpiry(): boolean {
    if (this.watchExpiries <= 0) return false;
    this.watchExpiries--;
    return true;
  }

  /**
   * Handles a control request body: `{"fault": "<name>", ...params}`. Built-in names: `dropWatches`,
   * `expireWatch` (`count`), `errors` (`count`, `code`, `retryAfterSeconds`), `latency` (`ms`),
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
      case "expireWatch":
        this.expireNextWatchResume(num("count", 1));
        return { body: this.status() };
      case "errors": {
        const code = num("code", 503);
        if (code !== 429 && code !== 500 && code !== 503) throw new Error('"code" must be 429, 500 or 503');
        this.failNextRequests(num("count", 1), code, num("retryAfterSeconds", 1));
        return { body: this.status() };
      }
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
  "expireWatch",
  "errors",
  "latency",
  "refuseConnections",
  "rotateToken",
  "reset",
  "status",
];
