/**
 * Fault control: the `/simulator/faults` endpoint that switches faults on, and the injected latency
 * and errors every API request (not control requests) goes through first.
 */
import { ServerFaults } from "./faults";
import { decode } from "./negotiation";
import { ApiError, errors } from "./status";
import { isObject } from "../../primitives/objects";
import { Request, send } from "./transport";

export const CONTROL_PATH = "/simulator/faults";

/** Requests to the simulator's own endpoints, which faults never touch. */
export function isControlPath(pathname: string): boolean {
  return pathname.startsWith("/simulator/");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits out the injected latency, then throws the injected error if one is due. */
export async function injectFaults(faults: ServerFaults): Promise<void> {
  const latency = faults.latencyMs;
  if (latency > 0) await sleep(latency);
  const injected = faults.takeError();
  if (!injected) return;
  const reason = { 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable" }[injected.code];
  const headers = { "Retry-After": String(injected.retryAfterSeconds) };
  throw new ApiError(
    injected.code,
    reason,
    `injected fault: ${reason}`,
    { retryAfterSeconds: injected.retryAfterSeconds },
    headers,
  );
}

/** GET lists the faults and their status; POST `{"fault": ...}` triggers one. */
export async function control(request: Request, method: string, faults: ServerFaults): Promise<void> {
  if (method === "GET") return send(request, 200, { faults: faults.names(), status: faults.status() });
  if (method !== "POST") throw errors.methodNotAllowed(method);
  const body = decode(request);
  if (!isObject(body))
    throw errors.badRequest('the body must be a JSON object like {"fault": "dropWatches"}');
  try {
    const answer = await faults.control(body);
    if (answer.afterAnswer) {
      // Closing this connection gracefully delivers the answer before the fault cuts connections.
      request.req.socket.once("close", answer.afterAnswer);
      send(request, 200, answer.body, { Connection: "close" });
    } else {
      send(request, 200, answer.body);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw errors.badRequest(error instanceof Error ? error.message : String(error));
  }
}
