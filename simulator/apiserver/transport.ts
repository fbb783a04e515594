/**
 * Transport: HTTPS on loopback with a self-signed CA (or plain HTTP, as `kubectl proxy` and `oc proxy`
 * serve the API), bearer-token authentication, request bodies and answers (JSON or plain text, errors as
 * Status objects). Knows nothing of resources.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import * as https from "node:https";
import { Socket } from "node:net";
import { fieldError, formatInvalidMessage } from "../schema";
import { SelectorError } from "./selectors";
import { ApiError, errors, Status } from "./status";
import { generateServingCertificates } from "./tls";

const HOST = "127.0.0.1";

/** One request in flight and what goes into its answer. */
export interface Request {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  query: URLSearchParams;
  body?: Buffer;
  /** Headers added to whatever answer is sent (e.g. field validation warnings). */
  headers: Record<string, string>;
}

export type Protocol = "https" | "http";

/** A listener that can be closed and reopened on the same port, cutting open connections. */
export class Transport {
  /** PEM of the CA that signed the serving certificate; empty over plain HTTP. */
  readonly caCert: string;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;

  constructor(
    handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
    readonly protocol: Protocol = "https",
  ) {
    const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
      handle(req, res).catch((error) => {
        console.error("simulator apiserver: failed to answer:", error);
        res.destroy();
      });
    };
    if (protocol === "https") {
      const certs = generateServingCertificates();
      this.caCert = certs.caCert;
      this.server = https.createServer({ cert: certs.cert, key: certs.key }, answer);
    } else {
      this.caCert = "";
      this.server = http.createServer(answer);
    }
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    // A client that hangs up mid-handshake must not take the server down.
    this.server.on("tlsClientError", () => undefined);
    this.server.on("clientError", (_error, socket) => {
      // Requests Node cannot even parse (unknown methods, broken headers) still get a Status answer.
      if (socket.writable) {
        const body = JSON.stringify(errors.badRequest("malformed HTTP request").toStatus());
        socket.write(
          `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy();
    });
  }

  get port(): number {
    return this.boundPort;
  }

  /** host:port clients reach the server at. */
  get address(): string {
    return `${HOST}:${this.boundPort}`;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once("error", onError);
      this.server.listen(port, HOST, () => {
        this.server.off("error", onError);
        this.boundPort = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  /** Stops listening and destroys every open connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await closed;
  }
}

/** Whether the request carries `token` as its bearer token (compared in constant time). */
export function authenticated(req: http.IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1].trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The request body, refused with 413 past `maxBody` bytes. */
export function readBody(req: http.IncomingMessage, maxBody: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBody) {
    req.resume();
    return Promise.reject(errors.tooLarge(maxBody));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBody) {
        failed = true;
        reject(errors.tooLarge(maxBody));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on("error", (error) => {
      if (!failed) reject(error);
      failed = true;
    });
  });
}

/** Answers with JSON, or plain text for a string body. */
export function send(
  request: Request,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const { res } = request;
  if (res.headersSent || res.destroyed) return;
  const payload = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  res.writeHead(code, {
    "Content-Type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    "Content-Length": payload.length,
    "Cache-Control": "no-cache, private",
    "Audit-Id": randomUUID(),
    ...request.headers,
    ...headers,
  });
  res.end(payload);
}

/** Answers with the Status of an error; anything not an ApiError is an internal error. */
export function fail(request: Request, error: unknown): void {
  let apiError: ApiError;
  if (error instanceof ApiError) apiError = error;
  else if (error instanceof SelectorError) apiError = errors.badRequest(error.message);
  else {
    console.error("simulator apiserver: unexpected error:", error);
    apiError = errors.internal(error instanceof Error ? error.message : String(error));
  }
  if (request.res.headersSent) {
    // A streaming answer (watch) already started: all that can be done is to end it.
    request.res.destroy();
    return;
  }
  const status: Status = apiError.toStatus();
  const headers = { ...apiError.headers };
  if (apiError.code === 413) headers.Connection = "close";
  send(request, apiError.code, status, headers);
}

/** `?dryRun=All`: the write is admitted but not stored. */
export function dryRunOf(request: Request): boolean {
  const values = request.query.getAll("dryRun");
  for (const v of values)
    if (v !== "All") throw errors.badRequest(`unsupported dryRun value "${v}"; only "All" is supported`);
  return values.length > 0;
}

/** The options kind a write's query decodes to, by method (the handlers of create, update and patch). */
const OPTIONS_KIND: Record<string, string> = { POST: "CreateOptions", PUT: "UpdateOptions" };

/**
 * `?fieldManager` as kube-apiserver's handlers check it before the body (apimachinery
 * pkg/apis/meta/v1/validation ValidateFieldManager: at most 128 bytes), refused as their options kind.
 */
export function checkFieldManager(request: Request, manager: string): string {
  if (Buffer.byteLength(manager) <= 128) return manager;
  const kind = OPTIONS_KIND[request.req.method ?? ""] ?? "PatchOptions";
  const error = fieldError("tooLong", "fieldManager", manager, "may not be more than 128 bytes");
  throw errors.invalid(kind, "meta.k8s.io", "", formatInvalidMessage(kind, "meta.k8s.io", "", [error]), [
    error,
  ]);
}

/** The field manager of a write: `?fieldManager`, else the client's name from its User-Agent. */
export function fieldManagerOf(request: Request): string {
  const explicit = request.query.get("fieldManager");
  if (explicit !== null) return checkFieldManager(request, explicit);
  const agent = request.req.headers["user-agent"] ?? "unknown";
  return agent.split("/")[0] || "unknown";
}
