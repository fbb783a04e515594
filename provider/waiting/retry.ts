/**
 * Which API failures are worth retrying and how long to wait before the next attempt: exponential
 * backoff with jitter, never shorter than what the server asked for in Retry-After.
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
}

export function apiError(
  message: string,
  details: { status?: number; reason?: string; code?: string; retryAfterMs?: number },
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
