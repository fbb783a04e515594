/**
 * Which API failures are worth retrying and how long to wait before the next attempt, at two levels,
 * as client-go has them: each request is tried again as its rest client does (`restRetryAfterMs`: at
 * most 10 times, after the server's Retry-After), and a wait or an operation with a deadline tries
 * again whatever is transient, with exponential backoff and jitter, never shorter than Retry-After
 * (`withRetry`, the reflector's `retrying`), as a reflector or a controller's queue does. Every
 * request path (the waiting core's client, the preview's reads, the harness engine's client) takes its
 * per-request policy from here.
 */
import { Clock, systemClock } from "./clock";

export interface RetryPolicy {
  /** First delay. */
  initialMs: number;
  /** Ceiling of the exponential part. */
  maxMs: number;
  factor: number;
  /** Share of each delay that is randomised, 0..1, so that many waiters do not retry in lockstep. */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { initialMs: 100, maxMs: 5000, factor: 2, jitter: 0.5 };

/** An error from the API server or from the network on the way to it. */
export interface ApiError extends Error {
  /** HTTP status; undefined for network errors. */
  status?: number;
  /** The Kubernetes Status reason (NotFound, Expired, TooManyRequests, ...). */
  reason?: string;
  /** Node's network error code (ECONNREFUSED, ECONNRESET, ...). */
  code?: string;
  /** From Retry-After, in milliseconds. */
  retryAfterMs?: number;
  /** How many times the request was sent, when more than once: it was tried again and gave up. */
  tries?: number;
}

export function apiError(
  message: string,
  details: { status?: number; reason?: string; code?: string; retryAfterMs?: number; tries?: number },
): ApiError {
  return Object.assign(new Error(message), { name: "ApiError" }, details);
}

const RETRYABLE_NETWORK_CODES = [
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
];

/** 429, 5xx and transient network failures are retried; 4xx answers are final. */
export function isRetryable(error: unknown): boolean {
  const e = error as ApiError | undefined;
  if (!e || typeof e !== "object") return false;
  if (e.status !== undefined) return e.status === 429 || e.status >= 500;
  if (e.code && RETRYABLE_NETWORK_CODES.includes(e.code)) return true;
  // A socket closed mid-response carries no code but the message Node gives it.
  return /socket hang up|premature close|aborted/i.test(e.message ?? "");
}

/**
 * How many times client-go's rest client tries a request again at most (rest/client.go,
 * NewRESTClient: `maxRetries: 10`; rest/with_retry.go, IsNextRetry).
 */
export const MAX_RETRIES = 10;

/** A request as the per-request policy sees it. */
export interface RequestKind {
  method: string;
  /** A watch being opened: client-go's Watch also retries one whose connection timed out. */
  watch?: boolean;
}

/**
 * The pause before a request is sent again, or undefined when it is not, as client-go's rest client
 * decides (rest/with_retry.go, IsNextRetry and checkWait; rest/request.go, the IsRetryableErrorFunc of
 * `request` and of `Watch`): an answer 429 or 5xx that carries a Retry-After, after it; no answer, for
 * a GET whose connection was reset or closed before its answer ended (net.IsConnectionReset,
 * IsProbableEOF), or a watch's that timed out, after one second (retryAfterResponse); never a write
 * without an answer, which the server may have applied, nor a refused connection. `retries` counts
 * the tries again so far: none past MAX_RETRIES.
 */
export function restRetryAfterMs(error: unknown, request: RequestKind, retries: number): number | undefined {
  const e = error as ApiError | undefined;
  if (retries >= MAX_RETRIES || !e || typeof e !== "object") return undefined;
  if (e.status !== undefined) return e.status === 429 || e.status >= 500 ? e.retryAfterMs : undefined;
  if (request.method !== "GET") return undefined;
  const lost = e.code === "ECONNRESET" || e.code === "EPIPE" || /socket hang up/i.test(e.message ?? "");
  return lost || (request.watch === true && e.code === "ETIMEDOUT") ? 1000 : undefined;
}

/** How `sendRetried` pauses and reads failures. */
export interface SendOptions {
  sleep(ms: number): Promise<void>;
  /** True once the caller gave up on the request: nothing is sent again. */
  aborted?(): boolean;
  /** A failure as an ApiError, for clients whose errors are shaped otherwise (default: as thrown). */
  asApiError?(error: unknown): ApiError;
}

/**
 * Sends a request until an answer or a failure the per-request policy does not retry. A request that
 * was tried again and still failed ends with an ApiError (the failure as `asApiError` reads it, its
 * cause the last one thrown) whose message names the request and how many tries it was given.
 */
export async function sendRetried<T>(
  request: RequestKind & { path: string },
  send: () => Promise<T>,
  options: SendOptions,
): Promise<T> {
  const asApiError = options.asApiError ?? ((e: unknown) => e as ApiError);
  for (let retries = 0; ; retries++) {
    try {
      return await send();
    } catch (e) {
      // A request its caller gave up on ends as it failed: nobody waits for its tries.
      if (options.aborted?.()) throw e;
      const failure = asApiError(e);
      const pause = restRetryAfterMs(failure, request, retries);
      if (pause === undefined && retries === 0) throw e;
      if (pause === undefined) {
        const message = `${failure.message} (${request.method} ${request.path}: gave up after ${retries + 1} tries)`;
        const { status, reason, code, retryAfterMs } = failure;
        throw Object.assign(apiError(message, { status, reason, code, retryAfterMs, tries: retries + 1 }), {
          cause: e,
        });
      }
      await options.sleep(pause);
    }
  }
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function parseRetryAfter(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The delay before attempt `attempt + 1` (attempt counts from 0). */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxMs, policy.initialMs * Math.pow(policy.factor, attempt));
  return base * (1 - policy.jitter) + base * policy.jitter * random();
}

export function retryDelay(
  error: unknown,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const asked = (error as ApiError | undefined)?.retryAfterMs ?? 0;
  return Math.max(asked, backoffDelay(attempt, policy, random));
}

/** A one-line description of an API failure for messages. */
export function describeApiError(error: unknown): string {
  const e = error as ApiError;
  if (e?.status !== undefined) return `HTTP ${e.status}${e.reason ? ` ${e.reason}` : ""}: ${e.message}`;
  if (e?.code) return `${e.code}: ${e.message}`;
  return String(e?.message ?? error);
}

/** Runs a single request, retrying what `isRetryable` allows with the same backoff, until the deadline. */
export async function withRetry<T>(
  request: () => Promise<T>,
  options: { timeoutMs: number; retry?: RetryPolicy; clock?: Clock },
): Promise<T> {
  const policy = options.retry ?? DEFAULT_RETRY;
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (e) {
      const delay = retryDelay(e, attempt, policy);
      if (!isRetryable(e) || clock.now() + delay > deadline) throw e;
      await clock.sleep(delay);
    }
  }
}
