import { strict as assert } from "node:assert";
import { fakeClock } from "../../test/fake-clock";
import {
  apiError,
  ApiError,
  backoffDelay,
  DEFAULT_RETRY,
  describeApiError,
  isRetryable,
  MAX_RETRIES,
  parseRetryAfter,
  restRetryAfterMs,
  sendRetried,
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

/**
 * Each request on its own, as client-go's rest client tries it again (kubernetes/client-go
 * rest/with_retry.go, IsNextRetry and checkWait; rest/request.go, the IsRetryableErrorFunc of
 * `request`: a GET's connection reset or probable EOF, and of `Watch`: also a timeout; rest/client.go,
 * maxRetries 10).
 */
describe("retry policy: per request, as client-go's rest client", () => {
  const get = { method: "GET" };
  const answered = (status: number, retryAfterMs?: number) =>
    apiError("answered", { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

  it("a 429 or 5xx that carries Retry-After, after it, for every verb", () => {
    for (const method of ["GET", "POST", "PATCH", "DELETE"]) {
      assert.equal(restRetryAfterMs(answered(429, 1000), { method }, 0), 1000, method);
      assert.equal(restRetryAfterMs(answered(500, 0), { method }, 0), 0, method);
      assert.equal(restRetryAfterMs(answered(503, 2000), { method }, 9), 2000, method);
    }
  });

  it("no answer the server did not ask to be tried again: without Retry-After, or a 4xx with one", () => {
    assert.equal(restRetryAfterMs(answered(429), get, 0), undefined);
    assert.equal(restRetryAfterMs(answered(503), get, 0), undefined);
    assert.equal(restRetryAfterMs(answered(409, 1000), get, 0), undefined);
    assert.equal(restRetryAfterMs(answered(404, 1000), get, 0), undefined);
    assert.equal(restRetryAfterMs(answered(428, 1000), get, 0), undefined, "just below 429");
  });

  it("at most MAX_RETRIES times again, 10 as client-go", () => {
    assert.equal(MAX_RETRIES, 10);
    assert.equal(restRetryAfterMs(answered(429, 1000), get, MAX_RETRIES - 1), 1000);
    assert.equal(restRetryAfterMs(answered(429, 1000), get, MAX_RETRIES), undefined);
    const reset = apiError("reset", { code: "ECONNRESET" });
    assert.equal(restRetryAfterMs(reset, get, MAX_RETRIES), undefined);
  });

  it("a GET that lost its connection after one second: reset, broken pipe, or closed before its answer", () => {
    for (const code of ["ECONNRESET", "EPIPE"])
      assert.equal(restRetryAfterMs(apiError("lost", { code }), get, 0), 1000, code);
    assert.equal(restRetryAfterMs(new Error("socket hang up"), get, 0), 1000);
    assert.equal(restRetryAfterMs(new Error("Socket Hang Up"), get, 0), 1000);
  });

  it("never a write without an answer, a refused connection, or a GET's timeout (a watch's only)", () => {
    for (const method of ["POST", "PATCH", "PUT", "DELETE"])
      assert.equal(restRetryAfterMs(apiError("lost", { code: "ECONNRESET" }), { method }, 0), undefined);
    assert.equal(restRetryAfterMs(apiError("refused", { code: "ECONNREFUSED" }), get, 0), undefined);
    const timedOut = apiError("no answer", { code: "ETIMEDOUT" });
    assert.equal(restRetryAfterMs(timedOut, get, 0), undefined);
    assert.equal(restRetryAfterMs(timedOut, { method: "GET", watch: true }, 0), 1000);
    assert.equal(restRetryAfterMs(timedOut, { method: "POST", watch: true }, 0), undefined);
    const refused = apiError("refused", { code: "ECONNREFUSED" });
    assert.equal(
      restRetryAfterMs(refused, { method: "GET", watch: true }, 0),
      undefined,
      "a watch's only timeout",
    );
    assert.equal(restRetryAfterMs(new Error("invalid kubeconfig"), get, 0), undefined);
    assert.equal(restRetryAfterMs(undefined, get, 0), undefined);
    assert.equal(restRetryAfterMs("text", get, 0), undefined);
  });
});

describe("retry policy: sendRetried", () => {
  const request = { method: "GET", path: "/api/v1/nodes" };
  const pauses = () => {
    const slept: number[] = [];
    return { slept, sleep: async (ms: number) => void slept.push(ms) };
  };

  it("sends again after each pause until an answer, and returns it", async () => {
    const { slept, sleep } = pauses();
    let sent = 0;
    const answer = await sendRetried(
      request,
      async () => {
        if (sent++ < 2) throw apiError("slow down", { status: 429, retryAfterMs: 1000 });
        return "ok";
      },
      { sleep },
    );
    assert.equal(answer, "ok");
    assert.equal(sent, 3);
    assert.deepEqual(slept, [1000, 1000]);
  });

  it("throws a failure not tried again as it came, unchanged", async () => {
    const forbidden = apiError("forbidden", { status: 403 });
    await assert.rejects(
      sendRetried(request, () => Promise.reject(forbidden), { sleep: async () => assert.fail("no pause") }),
      (e) => e === forbidden,
    );
  });

  it("gives up after 11 tries with the failure restated: the request, the status and the tries, the last one its cause", async () => {
    const { slept, sleep } = pauses();
    let sent = 0;
    const last = apiError("slow down", { status: 429, reason: "TooManyRequests", retryAfterMs: 1000 });
    const error = await sendRetried(
      { method: "PATCH", path: "/apis/x/v1/things/a" },
      async () => {
        sent++;
        throw last;
      },
      { sleep },
    ).catch((e: ApiError & { cause?: unknown }) => e);
    assert.equal(sent, 11);
    assert.equal(slept.length, 10);
    assert.equal(error.message, "slow down (PATCH /apis/x/v1/things/a: gave up after 11 tries)");
    assert.deepEqual(
      [error.name, error.status, error.reason, error.retryAfterMs, error.tries, error.cause],
      ["ApiError", 429, "TooManyRequests", 1000, 11, last],
    );
  });

  it("reads failures shaped otherwise through asApiError, and keeps its code", async () => {
    const { sleep } = pauses();
    let sent = 0;
    const raw = { problem: "reset" };
    const error = await sendRetried(
      request,
      async () => {
        sent++;
        throw raw;
      },
      { sleep, asApiError: () => apiError("connection reset", { code: "ECONNRESET" }) },
    ).catch((e: ApiError) => e);
    assert.equal(sent, 11);
    assert.equal(error.code, "ECONNRESET");
    assert.equal(error.status, undefined);
    assert.equal(error.message, "connection reset (GET /api/v1/nodes: gave up after 11 tries)");
  });

  it("sends nothing more once the caller gave up, and ends with the failure as it came", async () => {
    let sent = 0;
    let aborted = false;
    const throttled = apiError("slow down", { status: 429, retryAfterMs: 1000 });
    await assert.rejects(
      sendRetried(
        request,
        async () => {
          sent++;
          throw throttled;
        },
        { sleep: async () => void (aborted = true), aborted: () => aborted },
      ),
      (e) => e === throttled,
    );
    assert.equal(sent, 2);
  });
});
