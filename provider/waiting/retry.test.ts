import { strict as assert } from "node:assert";
import { fakeClock } from "../../test/fake-clock";
import {
  apiError,
  backoffDelay,
  DEFAULT_RETRY,
  describeApiError,
  isRetryable,
  parseRetryAfter,
  withRetry,
} from "./retry";

/**
 * The retry policy follows client-go: kubernetes/client-go rest/with_retry.go (withRetry.IsNextRetry:
 * only errors its IsRetryableErrorFunc accepts are retried, and never past the request's context
 * deadline), rest/request.go (checkWait: the server's Retry-After is a floor on the pause) and
 * apimachinery's util/wait Backoff.Step (each pause the previous times Factor, capped by Cap, jittered).
 */
describe("retry policy: which failures are retried", () => {
  it("retries every transient network failure Node reports, and a socket closed mid-answer", () => {
    // Node's codes for a connection refused, reset, timed out or cut, and undici's for a closed socket.
    const transient =
      "ECONNREFUSED ECONNRESET ETIMEDOUT EPIPE EAI_AGAIN ENETUNREACH EHOSTUNREACH ECONNABORTED";
    for (const code of [...transient.split(" "), "UND_ERR_SOCKET"]) {
      assert.equal(isRetryable(apiError("network", { code })), true, code);
    }
    for (const message of ["socket hang up", "Premature close", "The operation was aborted"]) {
      assert.equal(isRetryable(new Error(message)), true, message);
    }
  });

  it("does not retry what another attempt cannot change: other codes, 4xx, and values that are no error", () => {
    assert.equal(isRetryable(apiError("permission denied", { code: "EACCES" })), false);
    assert.equal(isRetryable(apiError("conflict", { status: 409 })), false);
    assert.equal(isRetryable(apiError("socket hang up", { status: 403 })), false, "the status decides");
    assert.equal(isRetryable(new Error("invalid kubeconfig")), false);
    assert.equal(isRetryable(undefined), false);
    assert.equal(isRetryable(null), false);
  });

  it("names API errors as such, keeping what the server said", () => {
    const e = apiError("too many requests", { status: 429, reason: "TooManyRequests", retryAfterMs: 2000 });
    assert.ok(e instanceof Error);
    assert.equal(e.name, "ApiError");
    assert.deepEqual(
      [e.message, e.status, e.reason, e.retryAfterMs],
      ["too many requests", 429, "TooManyRequests", 2000],
    );
  });

  it("describes a failure by status and reason, by network code, or by its message", () => {
    assert.equal(
      describeApiError(apiError("gone", { status: 410, reason: "Expired" })),
      "HTTP 410 Expired: gone",
    );
    assert.equal(describeApiError(apiError("bad gateway", { status: 502 })), "HTTP 502: bad gateway");
    assert.equal(describeApiError(apiError("refused", { code: "ECONNREFUSED" })), "ECONNREFUSED: refused");
    assert.equal(describeApiError(new Error("socket hang up")), "socket hang up");
    assert.equal(describeApiError("plain text"), "plain text");
    assert.equal(describeApiError(undefined), "undefined", "describing a failure never fails itself");
  });
});

describe("retry policy: Retry-After", () => {
  it("reads delta-seconds and HTTP dates, never below zero, and nothing from an empty header", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(parseRetryAfter("3", now), 3000);
    assert.equal(parseRetryAfter("0", now), 0);
    assert.equal(parseRetryAfter("-5", now), 0);
    assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now), 60_000);
    assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now), 0, "a date passed means now");
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter("", now), undefined);
    assert.equal(parseRetryAfter("   ", now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});

describe("retry policy: withRetry", () => {
  const steady = { initialMs: 100, maxMs: 5000, factor: 2, jitter: 0 };

  /** A request that fails with `failures` in turn, then answers; it counts its attempts. */
  function flaky<T>(failures: Error[], answer: T) {
    const state = { attempts: 0 };
    const request = async () => {
      const failure = failures[state.attempts++];
      if (failure) throw failure;
      return answer;
    };
    return { state, request };
  }

  it("retries transient failures with pauses that grow by the factor, then returns the answer", async () => {
    const clock = fakeClock();
    const busy = apiError("unavailable", { status: 503 });
    const { state, request } = flaky([busy, busy, busy], "ok");
    assert.equal(await withRetry(request, { timeoutMs: 60_000, retry: steady, clock }), "ok");
    assert.equal(state.attempts, 4);
    assert.deepEqual(clock.slept, [100, 200, 400]);
  });

  it("caps the pauses at maxMs", async () => {
    const clock = fakeClock();
    const busy = apiError("unavailable", { status: 503 });
    const { request } = flaky([busy, busy, busy, busy], "ok");
    await withRetry(request, { timeoutMs: 60_000, retry: { ...steady, maxMs: 250 }, clock });
    assert.deepEqual(clock.slept, [100, 200, 250, 250]);
  });

  it("waits at least as long as the server's Retry-After", async () => {
    const clock = fakeClock();
    const { request } = flaky([apiError("slow down", { status: 429, retryAfterMs: 3000 })], "ok");
    assert.equal(await withRetry(request, { timeoutMs: 60_000, retry: steady, clock }), "ok");
    assert.deepEqual(clock.slept, [3000]);
  });

  it("throws an answer retrying cannot change at once, without waiting for the deadline", async () => {
    const clock = fakeClock();
    const forbidden = apiError("forbidden", { status: 403, reason: "Forbidden" });
    const { state, request } = flaky([forbidden], "never");
    await assert.rejects(withRetry(request, { timeoutMs: 60_000, retry: steady, clock }), forbidden);
    assert.equal(state.attempts, 1);
    assert.deepEqual(clock.slept, []);
  });

  it("gives up with the last failure when the next pause would pass the deadline, making one that ends on it", async () => {
    const clock = fakeClock();
    const busy = apiError("unavailable", { status: 503 });
    // Should the deadline be ignored, the request ends with a different error instead of hanging.
    const failures = [...Array<Error>(10).fill(busy), new Error("retried past the deadline")];
    const { state, request } = flaky(failures, "never");
    await assert.rejects(withRetry(request, { timeoutMs: 700, retry: steady, clock }), busy);
    assert.deepEqual(clock.slept, [100, 200, 400], "the third pause ends exactly on the deadline");
    assert.equal(state.attempts, 4);
  });

  it("uses the default policy when none is given", async () => {
    const clock = fakeClock();
    const { request } = flaky([apiError("refused", { code: "ECONNREFUSED" })], "ok");
    assert.equal(await withRetry(request, { timeoutMs: 60_000, clock }), "ok");
    const first = backoffDelay(0, DEFAULT_RETRY, () => 0);
    assert.equal(clock.slept.length, 1);
    assert.ok(clock.slept[0] >= first && clock.slept[0] <= DEFAULT_RETRY.initialMs, `${clock.slept[0]}`);
  });
});
