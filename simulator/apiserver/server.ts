import { isObject } from "../../primitives/objects";
import { isDnsLabel, isDnsSubdomain, isLabelValue, isQualifiedName } from "../../primitives/names";
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import { Socket } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { CrdSchemas, FieldError, fieldError, formatInvalidMessage } from "../schema";
import { KubeObject, ObjectKey, StoreError } from "../store";
import {
  MemoryStore,
  PropagationPolicy,
  ResourceVersionTooOldError,
  kubeTimestamp,
} from "../store/memory-store";
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  KUBERNETES_VERSION,
  openApiV3GroupVersion,
  openApiV3Root,
  versionInfo,
} from "./discovery";
import { FaultTarget, ServerFaults } from "./faults";
import { evaluateJsonPath, setJsonPath } from "./jsonpath";
import {
  ApplyConflictError,
  builtinListTypes,
  ListTypes,
  schemaListTypes,
  Scope,
  serverSideApply,
  trackUpdate,
} from "./managed-fields";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch";
import { decodeProtobuf, openApiV2Protobuf, ProtobufError } from "./protobuf";
import { apiVersionOf, ResourceRegistry, ResourceType } from "./resources";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors";
import { ApiError, errors, qualifiedResource, Status } from "./status";
import { toTable } from "./table";
import { generateServingCertificates } from "./tls";

export interface ApiServerOptions {
  store: MemoryStore;
  /** CRDs that validate and prune custom resources; without them custom resources are stored as sent. */
  schemas?: CrdSchemas;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Bearer token clients must present; random when omitted. */
  token?: string;
  /** Where to write the kubeconfig; a file in the OS temp dir (removed on stop) when omitted. */
  kubeconfigPath?: string;
  /** Largest request body accepted, in bytes (default 3 MiB, as the real server). */
  maxBodyBytes?: number;
  /** How often watches that allow bookmarks get one (default 1 s). */
  bookmarkIntervalMs?: number;
  /** Source of "now" for ages in tables and managedFields times. */
  now?: () => Date;
}

const HOST = "127.0.0.1";
const DEFAULT_MAX_BODY = 3 * 1024 * 1024;
const MAX_WATCH_SECONDS = 1800;
const PATCH_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const PROTOBUF = "application/vnd.kubernetes.protobuf";
// The Accept value clients send has an "@", which Go cannot parse back; servers answer with ".v1.0".
const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
/** Deeper bodies are refused before any recursive processing could exhaust the stack. */
const MAX_NESTING = 1000;

interface Request {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  query: URLSearchParams;
  body?: Buffer;
  /** Headers added to whatever answer is sent (e.g. field validation warnings). */
  headers: Record<string, string>;
}

interface Target {
  resource: ResourceType;
  version: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface Watcher {
  close(): void;
}

type Json = Record<string, unknown>;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A Kubernetes API server over HTTPS on loopback, backed by a MemoryStore: discovery, CRUD, watch,
 * patches (merge, JSON, strategic, server-side apply), status and scale subresources, tables, and
 * failure injection. Real clients (kubectl, @kubernetes/client-node, pulumi-kubernetes) use it unmodified.
 */
export class ApiServer implements FaultTarget {
  readonly registry: ResourceRegistry;
  readonly faults: ServerFaults;
  readonly caCert: string;
  readonly kubeconfigPath: string;
  private readonly store: MemoryStore;
  private readonly schemas?: CrdSchemas;
  private readonly server: https.Server;
  private readonly sockets = new Set<Socket>();
  private readonly watchers = new Set<Watcher>();
  private readonly maxBody: number;
  private readonly bookmarkInterval: number;
  private readonly now: () => Date;
  private readonly ownsKubeconfig: boolean;
  private boundPort = 0;
  private stopped = false;
  private currentToken: string;

  private constructor(options: ApiServerOptions) {
    this.store = options.store;
    this.schemas = options.schemas;
    this.registry = new ResourceRegistry(options.schemas);
    this.faults = new ServerFaults(this);
    this.currentToken = options.token ?? randomBytes(24).toString("base64url");
    this.maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.bookmarkInterval = options.bookmarkIntervalMs ?? 1000;
    this.now = options.now ?? (() => new Date());
    this.ownsKubeconfig = options.kubeconfigPath === undefined;
    this.kubeconfigPath =
      options.kubeconfigPath ??
      path.join(os.tmpdir(), `openshift-sim-${process.pid}-${randomBytes(4).toString("hex")}.kubeconfig`);
    const certs = generateServingCertificates();
    this.caCert = certs.caCert;
    this.server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      this.handle(req, res).catch((error) => {
        console.error("simulator apiserver: failed to answer:", error);
        res.destroy();
      });
    });
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

  /** Starts listening and writes the kubeconfig. */
  static async start(options: ApiServerOptions): Promise<ApiServer> {
    const server = new ApiServer(options);
    await server.listen(options.port ?? 0);
    server.writeKubeconfig();
    return server;
  }

  get port(): number {
    return this.boundPort;
  }

  /** The bearer token clients must present now. */
  get token(): string {
    return this.currentToken;
  }

  /**
   * Replaces the token, as a renewed `oc login` does: from now on the old one gets 401 Unauthorized.
   * The kubeconfig file is rewritten with the new one, as `oc login` rewrites the user's.
   */
  rotateToken(): { token: string; kubeconfig: string } {
    this.currentToken = randomBytes(24).toString("base64url");
    this.writeKubeconfig();
    return { token: this.currentToken, kubeconfig: this.kubeconfig };
  }

  get url(): string {
    return `https://${HOST}:${this.boundPort}`;
  }

  /** A kubeconfig for this server: its CA, URL and token. */
  get kubeconfig(): string {
    return stringifyYaml({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "openshift-simulator",
          cluster: {
            server: this.url,
            "certificate-authority-data": Buffer.from(this.caCert).toString("base64"),
          },
        },
      ],
      users: [{ name: "simulator-admin", user: { token: this.token } }],
      contexts: [
        {
          name: "openshift-simulator",
          context: { cluster: "openshift-simulator", user: "simulator-admin", namespace: "default" },
        },
      ],
      "current-context": "openshift-simulator",
      preferences: {},
    });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.dropWatches();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await closed;
    if (this.ownsKubeconfig) fs.rmSync(this.kubeconfigPath, { force: true });
  }

  dropWatches(): number {
    const open = [...this.watchers];
    for (const w of open) w.close();
    return open.length;
  }

  async refuseConnections(ms: number): Promise<void> {
    const port = this.boundPort;
    this.dropWatches();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    await sleep(ms);
    if (!this.stopped) await this.listen(port);
  }

  private listen(port: number): Promise<void> {
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

  private writeKubeconfig(): void {
    fs.mkdirSync(path.dirname(this.kubeconfigPath), { recursive: true });
    fs.writeFileSync(this.kubeconfigPath, this.kubeconfig, { mode: 0o600 });
  }

  // ---------------------------------------------------------------------------------------------
  // Request pipeline

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const request: Request = {
      req,
      res,
      url: new URL("http://x/"),
      query: new URLSearchParams(),
      headers: {},
    };
    res.on("error", () => undefined);
    try {
      request.url = new URL(req.url ?? "/", "https://localhost");
      request.query = request.url.searchParams;
      if (!this.authenticated(req)) throw errors.unauthorized();
      const control = request.url.pathname.startsWith("/simulator/");
      if (!control) {
        const latency = this.faults.latencyMs;
        if (latency > 0) await sleep(latency);
        const injected = this.faults.takeError();
        if (injected) {
          const reason = { 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable" }[
            injected.code
          ];
          const headers = { "Retry-After": String(injected.retryAfterSeconds) };
          throw new ApiError(
            injected.code,
            reason,
            `injected fault: ${reason}`,
            { retryAfterSeconds: injected.retryAfterSeconds },
            headers,
          );
        }
      }
      request.body = await this.readBody(req);
      await this.route(request);
    } catch (error) {
      this.fail(request, error);
    }
  }

  private authenticated(req: http.IncomingMessage): boolean {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) return false;
    const given = Buffer.from(match[1].trim());
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private readBody(req: http.IncomingMessage): Promise<Buffer> {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > this.maxBody) {
      req.resume();
      return Promise.reject(errors.tooLarge(this.maxBody));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let failed = false;
      req.on("data", (chunk: Buffer) => {
        if (failed) return;
        size += chunk.length;
        if (size > this.maxBody) {
          failed = true;
          reject(errors.tooLarge(this.maxBody));
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

  private send(request: Request, code: number, body: unknown, headers: Record<string, string> = {}): void {
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

  private fail(request: Request, error: unknown): void {
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
    this.send(request, apiError.code, status, headers);
  }

  private async route(request: Request): Promise<void> {
    const method = request.req.method ?? "GET";
    const pathname = request.url.pathname.replace(/\/+$/, "") || "/";
    let segments: string[];
    try {
      segments = pathname.split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      throw errors.badRequest(`malformed path ${JSON.stringify(pathname)}`);
    }

    if (pathname === "/simulator/faults") return this.control(request, method);
    if (method === "GET") {
      switch (pathname) {
        case "/version":
          return this.send(request, 200, versionInfo());
        case "/healthz":
        case "/readyz":
        case "/livez":
          return this.send(request, 200, "ok");
        case "/api":
          return this.send(request, 200, apiVersions(`${HOST}:${this.boundPort}`));
        case "/apis":
          return this.send(request, 200, apiGroupList(this.registry));
        case "/openapi/v3":
          return this.send(request, 200, openApiV3Root(this.registry));
        case "/openapi/v2":
          return this.openApiV2(request);
      }
      if (segments[0] === "openapi" && segments[1] === "v3") {
        const [group, version] = segments[2] === "api" ? ["", segments[3]] : [segments[3], segments[4]];
        const doc = openApiV3GroupVersion(this.registry, group ?? "", version ?? "", (r, v) =>
          this.schemas?.schemaFor(apiVersionOf(r.group, v), r.kind),
        );
        if (doc) return this.send(request, 200, doc);
        throw errors.pathNotFound();
      }
    }
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === "api" && segments.length >= 2) {
      [group, version, rest] = ["", segments[1], segments.slice(2)];
    } else if (segments[0] === "apis" && segments.length >= 3) {
      [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
    } else if (segments[0] === "apis" && segments.length === 2 && method === "GET") {
      const doc = apiGroup(this.registry, segments[1]);
      if (doc) return this.send(request, 200, doc);
      throw errors.pathNotFound();
    } else {
      throw errors.pathNotFound();
    }
    if (rest.length === 0) {
      const doc = method === "GET" ? apiResourceList(this.registry, group, version) : undefined;
      if (doc) return this.send(request, 200, doc);
      throw errors.pathNotFound();
    }
    const target = this.resolve(group, version, rest);
    return this.dispatch(request, method, target);
  }

  /** Protobuf for client-go (which asks for it), JSON otherwise; see `openApiV2Protobuf`. */
  private openApiV2(request: Request): void {
    const { res } = request;
    if (/protobuf/.test(request.req.headers.accept ?? "")) {
      const body = openApiV2Protobuf(KUBERNETES_VERSION.gitVersion);
      res.writeHead(200, { "Content-Type": OPENAPI_V2_PROTOBUF, "Content-Length": body.length });
      res.end(body);
      return;
    }
    this.send(request, 200, {
      swagger: "2.0",
      info: { title: "Kubernetes", version: KUBERNETES_VERSION.gitVersion },
      paths: {},
      definitions: {},
    });
  }

  private resolve(group: string, version: string, rest: string[]): Target {
    let namespace: string | undefined;
    let parts = rest;
    if (parts[0] === "namespaces" && parts.length >= 3) {
      const inner = this.registry.byPlural(group, version, parts[2]);
      if (inner?.namespaced) {
        namespace = parts[1];
        parts = parts.slice(2);
      }
    }
    const [plural, name, subresource, ...extra] = parts;
    const resource = this.registry.byPlural(group, version, plural);
    if (!resource || extra.length > 0) throw errors.pathNotFound();
    if (resource.namespaced && namespace === undefined && name !== undefined) throw errors.pathNotFound();
    if (subresource !== undefined) {
      const known =
        (subresource === "status" && resource.status) || (subresource === "scale" && resource.scale);
      if (!known) throw errors.pathNotFound();
    }
    return { resource, version, namespace, name, subresource };
  }

  private async dispatch(request: Request, method: string, target: Target): Promise<void> {
    const { name, subresource } = target;
    if (name === undefined) {
      // The all-namespaces path of a namespaced resource only lists and watches.
      if (target.resource.namespaced && target.namespace === undefined && method !== "GET")
        throw errors.methodNotAllowed(method);
      if (method === "GET") {
        const watch = request.query.get("watch");
        if (watch === "true" || watch === "1") return this.watch(request, target);
        return this.list(request, target);
      }
      if (method === "POST") return this.create(request, target);
      if (method === "DELETE" && target.resource.kind !== "Namespace")
        return this.deleteCollection(request, target);
      throw errors.methodNotAllowed(method);
    }
    if (subresource === "scale") {
      if (method === "GET") return this.send(request, 200, this.scaleOf(target, this.mustGet(target)));
      if (method === "PUT") return this.updateScale(request, target, this.decodeObject(request));
      if (method === "PATCH") return this.patchScale(request, target);
      throw errors.methodNotAllowed(method);
    }
    switch (method) {
      case "GET":
        return this.get(request, target);
      case "PUT":
        return this.update(request, target);
      case "PATCH":
        return this.patch(request, target);
      case "DELETE":
        if (subresource) throw errors.methodNotAllowed(method);
        return this.delete(request, target);
      default:
        throw errors.methodNotAllowed(method);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  private apiVersion(target: Target): string {
    return apiVersionOf(target.resource.group, target.version);
  }

  private key(target: Target, name = target.name ?? ""): ObjectKey {
    return {
      apiVersion: this.apiVersion(target),
      kind: target.resource.kind,
      namespace: target.namespace,
      name,
    };
  }

  private mustGet(target: Target): KubeObject {
    const object = this.store.get(this.key(target));
    if (!object) throw errors.notFound(target.resource.plural, target.resource.group, target.name ?? "");
    return object;
  }

  private wantsTable(request: Request): boolean {
    return /as=Table/.test(request.req.headers.accept ?? "");
  }

  private dryRun(request: Request): boolean {
    const values = request.query.getAll("dryRun");
    for (const v of values)
      if (v !== "All") throw errors.badRequest(`unsupported dryRun value "${v}"; only "All" is supported`);
    return values.length > 0;
  }

  private manager(request: Request): string {
    const explicit = request.query.get("fieldManager");
    if (explicit !== null) {
      if (explicit.length > 128)
        throw errors.badRequest("fieldManager: Too long: may not be longer than 128");
      return explicit;
    }
    const agent = request.req.headers["user-agent"] ?? "unknown";
    return agent.split("/")[0] || "unknown";
  }

  private listTypes(target: Target): ListTypes {
    if (target.resource.builtin) return builtinListTypes;
    return schemaListTypes(this.schemas?.schemaFor(this.apiVersion(target), target.resource.kind));
  }

  private scope(target: Target): Scope {
    if (target.subresource === "status") return "status";
    return target.resource.status ? "main" : "all";
  }

  private decode(request: Request): unknown {
    const body = request.body ?? Buffer.alloc(0);
    if (body.length === 0) throw errors.badRequest("the request body is empty");
    const contentType = (request.req.headers["content-type"] ?? "application/json")
      .split(";")[0]
      .trim()
      .toLowerCase();
    if (contentType === PROTOBUF) {
      try {
        return decodeProtobuf(body);
      } catch (error) {
        if (error instanceof ProtobufError && error.unsupported) {
          throw errors.unsupportedMediaType(contentType, ["application/json", "application/yaml"]);
        }
        throw errors.badRequest(
          `error decoding protobuf: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const text = body.toString("utf8");
    let value: unknown;
    try {
      value = contentType.includes("yaml") ? parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text);
    } catch (error) {
      const what = contentType.includes("yaml") ? "yaml" : "json";
      throw errors.badRequest(
        `error decoding ${what}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      );
    }
    if (nestingDepth(value) > MAX_NESTING) {
      throw errors.badRequest(`the request body nests deeper than ${MAX_NESTING} levels`);
    }
    return value;
  }

  private decodeObject(request: Request): Json {
    const contentType = (request.req.headers["content-type"] ?? "application/json")
      .split(";")[0]
      .trim()
      .toLowerCase();
    if (
      !["application/json", "application/yaml", "application/x-yaml", "text/yaml", "*/*", PROTOBUF].includes(
        contentType,
      )
    ) {
      throw errors.unsupportedMediaType(contentType, ["application/json", "application/yaml"]);
    }
    const value = this.decode(request);
    if (!isObject(value)) throw errors.badRequest("the request body must be a JSON object");
    return value;
  }

  /**
   * Decoding into ObjectMeta fails for wrongly typed fields: the real server answers 400 before any
   * validation, and so must we to keep malformed metadata out of the store.
   */
  private checkMetadataTypes(object: Json): void {
    const meta = object.metadata;
    if (meta === undefined || meta === null) {
      object.metadata = {};
      return;
    }
    if (!isObject(meta))
      throw errors.badRequest("json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta");
    const bad = (field: string, type: string) =>
      errors.badRequest(
        `json: cannot unmarshal into Go struct field ObjectMeta.metadata.${field} of type ${type}`,
      );
    for (const field of ["name", "generateName", "namespace", "resourceVersion", "uid"]) {
      if (meta[field] !== undefined && meta[field] !== null && typeof meta[field] !== "string")
        throw bad(field, "string");
    }
    for (const field of ["labels", "annotations"]) {
      const map = meta[field];
      if (map === undefined || map === null) continue;
      if (!isObject(map) || !Object.values(map).every((v) => typeof v === "string"))
        throw bad(field, "map[string]string");
    }
    const finalizers = meta.finalizers;
    if (finalizers !== undefined && finalizers !== null) {
      if (!Array.isArray(finalizers) || !finalizers.every((f) => typeof f === "string"))
        throw bad("finalizers", "[]string");
    }
    const refs = meta.ownerReferences;
    if (refs !== undefined && refs !== null) {
      const valid =
        Array.isArray(refs) &&
        refs.every(
          (r) =>
            isObject(r) &&
            ["apiVersion", "kind", "name", "uid"].every(
              (k) => r[k] === undefined || typeof r[k] === "string",
            ),
        );
      if (!valid) throw bad("ownerReferences", "[]v1.OwnerReference");
    }
    for (const field of ["labels", "annotations", "finalizers", "ownerReferences", "managedFields"]) {
      if (meta[field] === null) delete meta[field];
    }
  }

  /** Name, label and annotation checks every kind gets (`ValidateObjectMeta`). */
  private metadataErrors(target: Target, object: KubeObject): FieldError[] {
    const result: FieldError[] = [];
    const meta = object.metadata;
    const name = meta.name;
    const valid = target.resource.kind === "Namespace" ? isDnsLabel : isDnsSubdomain;
    if (!name) {
      result.push(fieldError("required", "metadata.name", undefined, "name or generateName is required"));
    } else if (!valid(name)) {
      const what = target.resource.kind === "Namespace" ? "RFC 1123 label" : "RFC 1123 subdomain";
      result.push(
        fieldError(
          "invalid",
          "metadata.name",
          name,
          `a lowercase ${what} must consist of lower case alphanumeric characters, '-'${what.endsWith("subdomain") ? " or '.'" : ""}, and must start and end with an alphanumeric character`,
        ),
      );
    }
    for (const [key, value] of Object.entries(meta.labels ?? {})) {
      if (!isQualifiedName(key)) {
        result.push(
          fieldError(
            "invalid",
            "metadata.labels",
            key,
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          ),
        );
      }
      if (!isLabelValue(value)) {
        result.push(
          fieldError(
            "invalid",
            "metadata.labels",
            value,
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          ),
        );
      }
    }
    for (const key of Object.keys(meta.annotations ?? {})) {
      if (!isQualifiedName(key.toLowerCase())) {
        result.push(
          fieldError(
            "invalid",
            "metadata.annotations",
            key,
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          ),
        );
      }
    }
    return result;
  }

  /** Reports pruned (unknown) fields per `fieldValidation`: Strict answers 400, Warn adds a Warning header, Ignore is silent. */
  private reportUnknown(request: Request, pruned: string[]): void {
    const mode = request.query.get("fieldValidation") ?? "Warn";
    if (!["Strict", "Warn", "Ignore"].includes(mode)) {
      throw errors.badRequest(`fieldValidation must be one of Ignore, Warn, Strict, got "${mode}"`);
    }
    if (pruned.length === 0) return;
    const unknown = pruned.map((p) => `unknown field "${p}"`);
    if (mode === "Strict") throw errors.badRequest(`strict decoding error: ${unknown.join(", ")}`);
    if (mode === "Warn") request.headers.Warning = unknown.map((u) => `299 - ${asciiQuoted(u)}`).join(", ");
  }

  /** Drops fields the CRD schema does not know, before an applied configuration is merged. */
  private pruneUnknown(request: Request, target: Target, object: KubeObject): KubeObject {
    if (!target.resource.validated || !this.schemas) return object;
    const { object: pruned, pruned: paths } = this.schemas.prune(object);
    this.reportUnknown(request, paths);
    return pruned;
  }

  /**
   * Admission of a write: metadata checks, then for CRD-backed kinds pruning, defaulting and schema
   * validation, with unknown fields handled per `fieldValidation`.
   */
  private admit(request: Request, target: Target, object: KubeObject): KubeObject {
    const { resource } = target;
    if (resource.kind === "Secret" && resource.group === "") defaultSecret(object);
    let result = object;
    const fieldErrors = this.metadataErrors(target, object);
    if (resource.validated && this.schemas) {
      const validation = this.schemas.validate(object);
      result = validation.object as KubeObject;
      fieldErrors.push(...validation.errors);
      if (fieldErrors.length === 0) this.reportUnknown(request, validation.pruned);
    }
    if (fieldErrors.length > 0) {
      const name = object.metadata.name ?? "";
      throw errors.invalid(
        resource.kind,
        resource.group,
        name,
        formatInvalidMessage(resource.kind, resource.group, name, fieldErrors),
        fieldErrors,
      );
    }
    return result;
  }

  private storeError(target: Target, error: unknown, name: string): never {
    if (error instanceof StoreError) {
      const { plural, group, kind } = target.resource;
      if (error.reason === "NotFound") throw errors.notFound(plural, group, name);
      if (error.reason === "AlreadyExists") throw errors.alreadyExists(plural, group, name);
      if (error.reason === "Conflict") {
        const detail = error.message.startsWith("Precondition")
          ? error.message
          : "the object has been modified; please apply your changes to the latest version and try again";
        throw errors.conflict(plural, group, name, detail);
      }
      throw errors.invalid(kind, group, name, error.message, []);
    }
    throw error;
  }

  private checkNamespace(target: Target, name: string): void {
    if (!target.resource.namespaced) return;
    const ns = target.namespace ?? "";
    const namespace = this.store.get({ apiVersion: "v1", kind: "Namespace", name: ns });
    if (!namespace) throw errors.notFound("namespaces", "", ns);
    if (namespace.metadata.deletionTimestamp !== undefined) {
      const { plural, group } = target.resource;
      throw new ApiError(
        403,
        "Forbidden",
        `${qualifiedResource(plural, group)} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        { name, group, kind: plural },
      );
    }
  }

  /** Fills apiVersion/kind and checks that body and URL agree, as the real decoder does. */
  private normalize(target: Target, object: Json, creating: boolean): KubeObject {
    const expectedApiVersion = this.apiVersion(target);
    const { kind } = target.resource;
    if (object.apiVersion !== undefined && object.apiVersion !== expectedApiVersion) {
      throw errors.badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expectedApiVersion})`,
      );
    }
    if (object.kind !== undefined && object.kind !== kind) {
      throw errors.badRequest(
        `the kind in the data (${String(object.kind)}) does not match the expected kind (${kind})`,
      );
    }
    object.apiVersion = expectedApiVersion;
    object.kind = kind;
    this.checkMetadataTypes(object);
    const meta = object.metadata as Json;
    if (target.resource.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== target.namespace) {
        throw errors.badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        );
      }
      meta.namespace = target.namespace;
    } else {
      delete meta.namespace;
    }
    if (creating && !meta.name && typeof meta.generateName === "string" && meta.generateName) {
      meta.name = meta.generateName + randomBytes(4).toString("hex").slice(0, 5);
    }
    if (!creating && target.name !== undefined && meta.name !== undefined && meta.name !== target.name) {
      throw errors.badRequest(
        `the name of the object (${String(meta.name)}) does not match the name on the URL (${target.name})`,
      );
    }
    if (!creating && target.name !== undefined) meta.name = target.name;
    return object as KubeObject;
  }

  private respondObject(request: Request, target: Target, code: number, object: KubeObject): void {
    if (this.wantsTable(request))
      return this.send(request, code, toTable(target.resource, [object], this.now()));
    if (this.wantsMetadata(request)) return this.send(request, code, partialMetadata(object));
    this.send(request, code, object);
  }

  /** Metadata-only answers (`as=PartialObjectMetadata[List]`), which client-go's metadata client asks for. */
  private wantsMetadata(request: Request): boolean {
    return /as=PartialObjectMetadata/.test(request.req.headers.accept ?? "");
  }

  // ---------------------------------------------------------------------------------------------
  // Verbs

  private get(request: Request, target: Target): void {
    this.respondObject(request, target, 200, this.mustGet(target));
  }

  private selected(request: Request, target: Target): KubeObject[] {
    const labels = parseLabelSelector(request.query.get("labelSelector") ?? "");
    const fields = parseFieldSelector(request.query.get("fieldSelector") ?? "", target.resource.kind);
    return this.store
      .list(this.apiVersion(target), target.resource.kind, { namespace: target.namespace })
      .filter((o) => labels(o.metadata.labels) && fields(o));
  }

  private list(request: Request, target: Target): void {
    const items = this.selected(request, target);
    const resourceVersion = this.store.resourceVersion;
    if (this.wantsTable(request))
      return this.send(request, 200, toTable(target.resource, items, this.now(), resourceVersion));
    if (this.wantsMetadata(request)) {
      return this.send(request, 200, {
        kind: "PartialObjectMetadataList",
        apiVersion: "meta.k8s.io/v1",
        metadata: { resourceVersion },
        items: items.map(partialMetadata),
      });
    }
    this.send(request, 200, {
      kind: target.resource.listKind,
      apiVersion: this.apiVersion(target),
      metadata: { resourceVersion },
      items,
    });
  }

  private create(request: Request, target: Target): void {
    const dryRun = this.dryRun(request);
    const object = this.normalize(target, this.decodeObject(request), true);
    delete object.metadata.managedFields;
    this.prepareCreate(target, object);
    const admitted = this.admit(request, target, object);
    this.checkNamespace(target, admitted.metadata.name);
    trackUpdate(undefined, admitted, {
      manager: this.manager(request),
      types: this.listTypes(target),
      scope: this.scope(target),
      now: this.now(),
    });
    if (this.store.get(this.key(target, admitted.metadata.name))) {
      throw errors.alreadyExists(target.resource.plural, target.resource.group, admitted.metadata.name);
    }
    if (dryRun) return this.respondObject(request, target, 201, this.simulatedCreate(admitted));
    let created: KubeObject;
    try {
      created = this.store.create(admitted);
    } catch (error) {
      this.storeError(target, error, admitted.metadata.name);
    }
    this.respondObject(request, target, 201, created);
  }

  /** What create strategies do before admission: status is not writable, namespaces start Active. */
  private prepareCreate(target: Target, object: KubeObject): KubeObject {
    if (target.resource.status && target.resource.kind !== "Node") delete object.status;
    if (target.resource.kind === "Namespace") {
      object.spec = { ...(isObject(object.spec) ? object.spec : {}), finalizers: ["kubernetes"] };
      object.status = { phase: "Active" };
      const name = object.metadata.name;
      if (name) object.metadata.labels = { ...object.metadata.labels, "kubernetes.io/metadata.name": name };
    }
    return object;
  }

  private simulatedCreate(object: KubeObject): KubeObject {
    const result = structuredClone(object);
    result.metadata.uid = randomUUID();
    result.metadata.generation = 1;
    result.metadata.creationTimestamp = kubeTimestamp(this.now());
    delete result.metadata.resourceVersion;
    return result;
  }

  /** Stores a write to an existing object (or only checks it, for dryRun). */
  private commit(
    request: Request,
    target: Target,
    existing: KubeObject,
    candidate: KubeObject,
    dryRun: boolean,
    track?: { subresource?: string; scope: Scope },
  ): KubeObject {
    const status = target.subresource === "status";
    // What the store would keep, so admission validates the complete object.
    const merged: KubeObject = status
      ? { ...structuredClone(existing), status: candidate.status, metadata: candidate.metadata }
      : {
          ...candidate,
          ...(target.resource.status && existing.status !== undefined ? { status: existing.status } : {}),
        };
    if (target.resource.status && !status && existing.status === undefined) delete merged.status;
    const admitted = this.admit(request, target, merged);
    if (track) {
      // Ownership is computed on the admitted object, so pruned fields are never owned.
      trackUpdate(existing, admitted, {
        manager: this.manager(request),
        types: this.listTypes(target),
        scope: track.scope,
        subresource: track.subresource,
        now: this.now(),
      });
    }
    if (dryRun) return admitted;
    try {
      return this.store.update(admitted, { subresource: status ? "status" : undefined });
    } catch (error) {
      this.storeError(target, error, existing.metadata.name);
    }
  }

  private update(request: Request, target: Target): void {
    const dryRun = this.dryRun(request);
    const object = this.normalize(target, this.decodeObject(request), false);
    const existing = this.mustGet(target);
    if (!target.resource.builtin && !object.metadata.resourceVersion) {
      const fe = fieldError("invalid", "metadata.resourceVersion", "0x0", "must be specified for an update");
      const { kind, group } = target.resource;
      throw errors.invalid(
        kind,
        group,
        existing.metadata.name,
        formatInvalidMessage(kind, group, existing.metadata.name, [fe]),
        [fe],
      );
    }
    if (
      object.metadata.resourceVersion &&
      object.metadata.resourceVersion !== existing.metadata.resourceVersion
    ) {
      this.storeError(target, new StoreError(409, "Conflict", "stale"), existing.metadata.name);
    }
    object.metadata.managedFields = existing.metadata.managedFields;
    const track = { scope: this.scope(target), subresource: target.subresource };
    this.respondObject(request, target, 200, this.commit(request, target, existing, object, dryRun, track));
  }

  private patchType(request: Request, target: Target): string {
    const contentType = (request.req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
    const accepted = [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.apply];
    if (target.resource.builtin || target.subresource === "scale") accepted.push(PATCH_TYPES.strategic);
    if (!accepted.includes(contentType)) throw errors.unsupportedMediaType(contentType, accepted);
    return contentType;
  }

  /** Applies a non-apply patch to a JSON value. */
  private applyPatch(type: string, current: unknown, patch: unknown): unknown {
    try {
      if (type === PATCH_TYPES.json) return jsonPatch(current, patch);
      if (!isObject(patch)) throw new PatchError(400, "the patch must be a JSON object");
      if (type === PATCH_TYPES.merge) return mergePatch(current, patch);
      return strategicMergePatch(current, patch);
    } catch (error) {
      if (error instanceof PatchError) {
        throw error.code === 400
          ? errors.badRequest(error.message)
          : new ApiError(422, "Invalid", error.message);
      }
      throw error;
    }
  }

  private patch(request: Request, target: Target): void {
    const type = this.patchType(request, target);
    const dryRun = this.dryRun(request);
    const body = this.decode(request);
    if (type === PATCH_TYPES.apply) return this.apply(request, target, body, dryRun);
    const existing = this.mustGet(target);
    const patched = this.applyPatch(type, existing, body);
    if (!isObject(patched)) throw errors.badRequest("the patch produced something that is not an object");
    const object = this.normalize(target, patched, false);
    const track = { scope: this.scope(target), subresource: target.subresource };
    this.respondObject(request, target, 200, this.commit(request, target, existing, object, dryRun, track));
  }

  private apply(request: Request, target: Target, body: unknown, dryRun: boolean): void {
    if (!isObject(body))
      throw errors.badRequest("error decoding YAML: the applied configuration must be an object");
    const manager = request.query.get("fieldManager");
    if (!manager)
      throw errors.badRequest("PATCH, application/apply-patch+yaml requires fieldManager parameter");
    const force = request.query.get("force") === "true";
    const applied = this.pruneUnknown(request, target, this.normalize(target, body, false));
    if (!applied.metadata.name) applied.metadata.name = target.name ?? "";
    const existing = this.store.get(this.key(target));
    const options = {
      manager,
      force,
      types: this.listTypes(target),
      scope: this.scope(target),
      subresource: target.subresource,
      now: this.now(),
    };
    let result: KubeObject;
    try {
      result = serverSideApply(existing, applied, options);
    } catch (error) {
      if (error instanceof ApplyConflictError) {
        throw new ApiError(409, "Conflict", error.message, {
          name: applied.metadata.name,
          group: target.resource.group,
          kind: target.resource.plural,
          causes: error.conflicts.map((c) => ({
            reason: "FieldManagerConflict",
            message: `conflict with "${c.manager}"${c.apiVersion ? ` using ${c.apiVersion}` : ""}`,
            field: c.field,
          })),
        });
      }
      throw error;
    }
    if (!existing) {
      if (target.subresource)
        throw errors.notFound(target.resource.plural, target.resource.group, target.name ?? "");
      const object = this.prepareCreate(target, this.normalize(target, result, true));
      const admitted = this.admit(request, target, object);
      this.checkNamespace(target, admitted.metadata.name);
      if (dryRun) return this.respondObject(request, target, 201, this.simulatedCreate(admitted));
      let created: KubeObject;
      try {
        created = this.store.create(admitted);
      } catch (error) {
        this.storeError(target, error, admitted.metadata.name);
      }
      return this.respondObject(request, target, 201, created);
    }
    const precondition = applied.metadata.resourceVersion;
    if (precondition && precondition !== existing.metadata.resourceVersion) {
      this.storeError(target, new StoreError(409, "Conflict", "stale"), existing.metadata.name);
    }
    result.metadata.resourceVersion = existing.metadata.resourceVersion;
    this.respondObject(request, target, 200, this.commit(request, target, existing, result, dryRun));
  }

  private deleteOptions(request: Request): {
    policy?: PropagationPolicy;
    preconditions?: { uid?: string; resourceVersion?: string };
    dryRun: boolean;
  } {
    let body: Json = {};
    if (request.body && request.body.length > 0) {
      const decoded = this.decode(request);
      if (!isObject(decoded)) throw errors.badRequest("DeleteOptions must be a JSON object");
      body = decoded;
    }
    const policy = (body.propagationPolicy ?? request.query.get("propagationPolicy") ?? undefined) as
      string | undefined;
    if (policy !== undefined && !["Background", "Foreground", "Orphan"].includes(policy)) {
      throw errors.badRequest(
        `propagationPolicy: Unsupported value: "${policy}": supported values: "Background", "Foreground", "Orphan"`,
      );
    }
    const orphan = body.orphanDependents ?? request.query.get("orphanDependents");
    const pre = isObject(body.preconditions) ? body.preconditions : {};
    const dryRunValues = [
      ...request.query.getAll("dryRun"),
      ...(Array.isArray(body.dryRun) ? body.dryRun : []),
    ];
    for (const v of dryRunValues)
      if (v !== "All") throw errors.badRequest(`unsupported dryRun value "${String(v)}"`);
    return {
      policy: (policy ?? (orphan === true || orphan === "true" ? "Orphan" : undefined)) as
        PropagationPolicy | undefined,
      preconditions: {
        uid: typeof pre.uid === "string" ? pre.uid : undefined,
        resourceVersion: typeof pre.resourceVersion === "string" ? pre.resourceVersion : undefined,
      },
      dryRun: dryRunValues.length > 0,
    };
  }

  private deleteOne(
    target: Target,
    existing: KubeObject,
    options: ReturnType<ApiServer["deleteOptions"]>,
  ): KubeObject | undefined {
    const key = this.key(target, existing.metadata.name);
    if (options.dryRun) return existing;
    try {
      this.store.delete(key, { propagationPolicy: options.policy, preconditions: options.preconditions });
    } catch (error) {
      this.storeError(target, error, existing.metadata.name);
    }
    return this.store.get(key);
  }

  private delete(request: Request, target: Target): void {
    const options = this.deleteOptions(request);
    const existing = this.mustGet(target);
    const remaining = this.deleteOne(target, existing, options);
    if (remaining) return this.send(request, 200, remaining);
    if (!target.resource.builtin) return this.send(request, 200, existing);
    this.send(request, 200, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: {
        name: existing.metadata.name,
        group: target.resource.group,
        kind: target.resource.plural,
        uid: existing.metadata.uid,
      },
    });
  }

  private deleteCollection(request: Request, target: Target): void {
    const options = this.deleteOptions(request);
    const items = this.selected(request, target);
    for (const item of items)
      this.deleteOne({ ...target, namespace: item.metadata.namespace }, item, options);
    this.send(request, 200, {
      kind: target.resource.listKind,
      apiVersion: this.apiVersion(target),
      metadata: { resourceVersion: this.store.resourceVersion },
      items,
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Scale subresource (autoscaling/v1)

  private scaleOf(target: Target, object: KubeObject): unknown {
    const scale = target.resource.scale!;
    const first = (p?: string) => (p ? evaluateJsonPath(object, p)[0] : undefined);
    const selector = first(scale.labelSelectorPath);
    const status: Json = { replicas: first(scale.statusReplicasPath) ?? 0 };
    if (typeof selector === "string" && selector) status.selector = selector;
    return {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: {
        name: object.metadata.name,
        namespace: object.metadata.namespace,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
        creationTimestamp: object.metadata.creationTimestamp,
      },
      spec: { replicas: first(scale.specReplicasPath) ?? 0 },
      status,
    };
  }

  private updateScale(request: Request, target: Target, scale: Json): void {
    const dryRun = this.dryRun(request);
    const existing = this.mustGet(target);
    const spec = isObject(scale.spec) ? scale.spec : {};
    const replicas = spec.replicas;
    if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
      const fe =
        typeof replicas === "number" && Number.isInteger(replicas)
          ? fieldError("invalid", "spec.replicas", replicas, "must be greater than or equal to 0")
          : fieldError(
              "typeInvalid",
              "spec.replicas",
              replicas ?? null,
              "spec.replicas in body must be of type integer",
            );
      throw errors.invalid(
        "Scale",
        "autoscaling",
        existing.metadata.name,
        formatInvalidMessage("Scale", "autoscaling", existing.metadata.name, [fe]),
        [fe],
      );
    }
    const meta = isObject(scale.metadata) ? scale.metadata : {};
    if (
      typeof meta.resourceVersion === "string" &&
      meta.resourceVersion &&
      meta.resourceVersion !== existing.metadata.resourceVersion
    ) {
      this.storeError(target, new StoreError(409, "Conflict", "stale"), existing.metadata.name);
    }
    const updated = structuredClone(existing);
    setJsonPath(updated, target.resource.scale!.specReplicasPath, replicas);
    const mainTarget = { ...target, subresource: undefined };
    const stored = this.commit(request, mainTarget, existing, updated, dryRun, {
      scope: "main",
      subresource: "scale",
    });
    this.send(request, 200, this.scaleOf(target, stored));
  }

  private patchScale(request: Request, target: Target): void {
    const type = this.patchType(request, target);
    if (type === PATCH_TYPES.apply)
      throw errors.unsupportedMediaType(type, [PATCH_TYPES.json, PATCH_TYPES.merge, PATCH_TYPES.strategic]);
    const current = this.scaleOf(target, this.mustGet(target));
    const patched = this.applyPatch(type, current, this.decode(request));
    if (!isObject(patched)) throw errors.badRequest("the patch produced something that is not an object");
    this.updateScale(request, target, patched);
  }

  // ---------------------------------------------------------------------------------------------
  // Watch

  private watch(request: Request, target: Target): void {
    const { query, res } = request;
    const labels = parseLabelSelector(query.get("labelSelector") ?? "");
    const fields = parseFieldSelector(query.get("fieldSelector") ?? "", target.resource.kind);
    const rvParam = query.get("resourceVersion") ?? "";
    const sendInitial = query.get("sendInitialEvents") === "true";
    const bookmarks = query.get("allowWatchBookmarks") === "true" || query.get("allowWatchBookmarks") === "1";
    const timeoutParam = query.get("timeoutSeconds");
    const timeoutSeconds = timeoutParam === null ? MAX_WATCH_SECONDS : Number(timeoutParam);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)
      throw errors.badRequest(`invalid timeoutSeconds "${timeoutParam}"`);
    const resume = rvParam !== "" && rvParam !== "0" && !sendInitial;
    const fromVersion = Number(rvParam);
    if (resume && (!Number.isInteger(fromVersion) || fromVersion < 0)) {
      throw errors.badRequest(`invalid resourceVersion "${rvParam}"`);
    }
    const apiVersion = this.apiVersion(target);
    const { group, kind } = target.resource;
    const table = this.wantsTable(request);
    const metadataOnly = this.wantsMetadata(request);
    let columnsSent = false;

    res.writeHead(200, {
      "Content-Type": "application/json",
      "Cache-Control": "no-cache, private",
      "Transfer-Encoding": "chunked",
      ...request.headers,
    });
    res.flushHeaders();

    const write = (type: string, object: unknown): void => {
      if (res.destroyed || res.writableEnded) return;
      let payload = object;
      if (table && type !== "ERROR" && type !== "BOOKMARK") {
        const t = toTable(target.resource, [object as KubeObject], this.now());
        if (columnsSent) t.columnDefinitions = [];
        columnsSent = true;
        payload = t;
      } else if (metadataOnly && type !== "ERROR") {
        payload = partialMetadata(object as KubeObject);
      }
      res.write(JSON.stringify({ type, object: payload }) + "\n");
    };
    const expire = (message: string): void => {
      write("ERROR", errors.gone(message).toStatus());
      res.end();
    };

    const sameKind = (o: KubeObject) =>
      o.kind === kind && (o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : "") === group;
    const inScope = (o: KubeObject) =>
      target.namespace === undefined || o.metadata.namespace === target.namespace;
    const matches = (o: KubeObject) => labels(o.metadata.labels) && fields(o);
    const visible = new Set<string>();
    const idOf = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    const deliver = (type: string, object: KubeObject): void => {
      if (!sameKind(object) || !inScope(object)) return;
      const out = { ...object, apiVersion };
      const id = idOf(object);
      const was = visible.has(id);
      const now = type !== "DELETED" && matches(object);
      if (type === "DELETED") {
        if (was || matches(object)) write("DELETED", out);
        visible.delete(id);
      } else if (now) {
        visible.add(id);
        write(was ? "MODIFIED" : "ADDED", out);
      } else if (was) {
        visible.delete(id);
        write("DELETED", out);
      }
    };

    if (resume) {
      if (this.faults.takeWatchExpiry())
        return expire(`too old resource version: ${fromVersion} (${this.store.resourceVersion})`);
      let replay;
      try {
        replay = this.store.eventsSince(fromVersion);
      } catch (error) {
        if (error instanceof ResourceVersionTooOldError) return expire(error.message);
        throw error;
      }
      // Objects that matched at the resume point are the ones the client knows about.
      const changed = new Set(replay.map((e) => idOf(e.object)));
      for (const o of this.store.list(apiVersion, kind, { namespace: target.namespace })) {
        if (!changed.has(idOf(o)) && matches(o)) visible.add(idOf(o));
      }
      for (const e of replay) {
        if (e.type !== "ADDED" && matches(e.object)) visible.add(idOf(e.object));
        deliver(e.type, e.object);
      }
    } else {
      for (const o of this.store.list(apiVersion, kind, { namespace: target.namespace })) deliver("ADDED", o);
      if (sendInitial) {
        write("BOOKMARK", {
          kind,
          apiVersion,
          metadata: {
            resourceVersion: this.store.resourceVersion,
            annotations: { "k8s.io/initial-events-end": "true" },
          },
        });
      }
    }

    const unsubscribe = this.store.subscribe((event) => deliver(event.type, event.object));
    const timers: NodeJS.Timeout[] = [];
    const watcher: Watcher = {
      close: () => {
        unsubscribe();
        for (const t of timers) clearTimeout(t);
        this.watchers.delete(watcher);
        if (!res.writableEnded) res.end();
      },
    };
    this.watchers.add(watcher);
    if (bookmarks) {
      const interval = setInterval(
        () =>
          write("BOOKMARK", { kind, apiVersion, metadata: { resourceVersion: this.store.resourceVersion } }),
        this.bookmarkInterval,
      );
      timers.push(interval);
    }
    timers.push(setTimeout(() => watcher.close(), Math.min(timeoutSeconds, MAX_WATCH_SECONDS) * 1000));
    res.on("close", () => watcher.close());
  }

  // ---------------------------------------------------------------------------------------------
  // Control endpoint

  private async control(request: Request, method: string): Promise<void> {
    if (method === "GET")
      return this.send(request, 200, { faults: this.faults.names(), status: this.faults.status() });
    if (method !== "POST") throw errors.methodNotAllowed(method);
    const body = this.decode(request);
    if (!isObject(body))
      throw errors.badRequest('the body must be a JSON object like {"fault": "dropWatches"}');
    try {
      const answer = await this.faults.control(body);
      if (answer.afterAnswer) {
        // Closing this connection gracefully delivers the answer before the fault cuts connections.
        request.req.socket.once("close", answer.afterAnswer);
        this.send(request, 200, answer.body, { Connection: "close" });
      } else {
        this.send(request, 200, answer.body);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw errors.badRequest(error instanceof Error ? error.message : String(error));
    }
  }
}

/** Secret defaulting and conversion: type Opaque, `stringData` folded into base64 `data`. */
function defaultSecret(secret: KubeObject): void {
  if (secret.type === undefined || secret.type === "") secret.type = "Opaque";
  const stringData = secret.stringData;
  if (isObject(stringData)) {
    const data = isObject(secret.data) ? secret.data : {};
    for (const [key, value] of Object.entries(stringData))
      data[key] = Buffer.from(String(value)).toString("base64");
    secret.data = data;
  }
  delete secret.stringData;
}

/** A quoted header value: HTTP headers carry Latin-1 only, so anything beyond ASCII is escaped. */
function asciiQuoted(text: string): string {
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** How deeply objects and arrays nest, computed without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_NESTING) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

function partialMetadata(object: KubeObject): unknown {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata };
}
