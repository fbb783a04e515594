import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { CrdSchemas } from "../schema";
import { MemoryStore } from "../store/memory-store";
import { serveDefinedKinds } from "./apiextensions";
import { injectFaults, isControlPath, sleep } from "./control";
import { FaultTarget, ServerFaults } from "./faults";
import { ResourceRegistry } from "./resources";
import { route, Routes } from "./routing";
import { errors } from "./status";
import { Backend, ComputedObjects } from "./target";
import { authenticated, fail, Protocol, readBody, Request, Transport } from "./transport";
import { Watches } from "./watch";

/** Sees one API request: its method and path with its query. */
export type RequestObserver = (method: string, url: string) => void;

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
  /**
   * Where to write what a pod's service-account volume holds (`token`, `ca.crt`, `namespace`), for an
   * in-cluster client; the token is written again when it rotates. None when omitted.
   */
  serviceAccountDir?: string;
  /** Largest request body accepted, in bytes (default 3 MiB, as the real server). */
  maxBodyBytes?: number;
  /** How often watches that allow bookmarks get one (default 1 s). */
  bookmarkIntervalMs?: number;
  /** Source of "now" for ages in tables and managedFields times. */
  now?: () => Date;
  /** Plurals of resources not served: their paths answer 404 and discovery leaves them out. */
  unserved?: readonly string[];
  /**
   * `http` serves the API without TLS, as `kubectl proxy` and `oc proxy` do on loopback (default
   * `https`); the kubeconfig then names an `http://` server and no CA.
   */
  protocol?: Protocol;
  /** The objects of read-only resources (e.g. PackageManifests), by `<group>/<plural>`. */
  computed?: Readonly<Record<string, ComputedObjects>>;
}

const DEFAULT_MAX_BODY = 3 * 1024 * 1024;

/**
 * A Kubernetes API server over HTTPS on loopback, backed by a MemoryStore: discovery, CRUD, watch,
 * patches (merge, JSON, strategic, server-side apply), status and scale subresources, tables, and
 * failure injection. Real clients (kubectl, @kubernetes/client-node, pulumi-kubernetes) use it unmodified.
 *
 * This class owns the lifecycle (listen, stop, token, kubeconfig) and the request pipeline:
 * authenticate, inject faults, read the body, route. The concerns live in their modules: transport,
 * negotiation, routing, admission, crud, apply, scale, watch, control.
 */
export class ApiServer implements FaultTarget {
  readonly registry: ResourceRegistry;
  readonly faults: ServerFaults;
  readonly caCert: string;
  readonly kubeconfigPath: string;
  readonly serviceAccountDir?: string;
  private readonly transport: Transport;
  private readonly routes: Routes;
  private readonly watches: Watches;
  private readonly maxBody: number;
  private readonly ownsKubeconfig: boolean;
  private stopped = false;
  private currentToken: string;
  private readonly requestObservers = new Set<RequestObserver>();
  private readonly stopDefinedKinds: () => void;

  private constructor(options: ApiServerOptions) {
    this.registry = new ResourceRegistry(options.schemas, options.unserved);
    this.faults = new ServerFaults(this);
    this.currentToken = options.token ?? randomBytes(24).toString("base64url");
    this.maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.ownsKubeconfig = options.kubeconfigPath === undefined;
    this.serviceAccountDir = options.serviceAccountDir;
    this.kubeconfigPath =
      options.kubeconfigPath ??
      path.join(os.tmpdir(), `openshift-sim-${process.pid}-${randomBytes(4).toString("hex")}.kubeconfig`);
    const backend: Backend = {
      store: options.store,
      schemas: options.schemas,
      now: options.now ?? (() => new Date()),
      computed: options.computed,
    };
    this.stopDefinedKinds = serveDefinedKinds(options.store, this.registry, backend.now, options.schemas);
    this.watches = new Watches(backend, options.bookmarkIntervalMs ?? 1000, this.faults);
    this.transport = new Transport((req, res) => this.handle(req, res), options.protocol);
    this.caCert = this.transport.caCert;
    this.routes = {
      backend,
      registry: this.registry,
      faults: this.faults,
      watches: this.watches,
      address: () => this.transport.address,
    };
  }

  /** Starts listening and writes the kubeconfig. */
  static async start(options: ApiServerOptions): Promise<ApiServer> {
    const server = new ApiServer(options);
    await server.transport.listen(options.port ?? 0);
    server.writeKubeconfig();
    return server;
  }

  get port(): number {
    return this.transport.port;
  }

  /** The bearer token clients must present now. */
  get token(): string {
    return this.currentToken;
  }

  /**
   * Replaces the token, as a renewed `oc login` does: from now on the old one gets 401 Unauthorized.
   * The kubeconfig file is rewritten with the new one, as `oc login` rewrites the user's, and so is the
   * service account's token file, as the kubelet rewrites a projected token.
   */
  rotateToken(): { token: string; kubeconfig: string } {
    this.currentToken = randomBytes(24).toString("base64url");
    this.writeKubeconfig();
    return { token: this.currentToken, kubeconfig: this.kubeconfig };
  }

  get url(): string {
    return `${this.transport.protocol}://${this.transport.address}`;
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
            ...(this.caCert
              ? { "certificate-authority-data": Buffer.from(this.caCert).toString("base64") }
              : {}),
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
    this.stopDefinedKinds();
    this.dropWatches();
    await this.transport.close();
    if (this.ownsKubeconfig) fs.rmSync(this.kubeconfigPath, { force: true });
  }

  dropWatches(): number {
    return this.watches.dropAll();
  }

  resetWatches(): number {
    return this.watches.resetAll();
  }

  /**
   * Calls `observer` with every API request received (not control requests), as the API server's
   * audit log records them, e.g. to count what a client sends. Returns the function that stops it.
   */
  observeRequests(observer: RequestObserver): () => void {
    this.requestObservers.add(observer);
    return () => this.requestObservers.delete(observer);
  }

  async refuseConnections(ms: number): Promise<void> {
    const port = this.transport.port;
    this.dropWatches();
    await this.transport.close();
    await sleep(ms);
    if (!this.stopped) await this.transport.listen(port);
  }

  private writeKubeconfig(): void {
    fs.mkdirSync(path.dirname(this.kubeconfigPath), { recursive: true });
    fs.writeFileSync(this.kubeconfigPath, this.kubeconfig, { mode: 0o600 });
    if (this.serviceAccountDir === undefined) return;
    fs.mkdirSync(this.serviceAccountDir, { recursive: true });
    const files = { token: this.token, "ca.crt": this.caCert, namespace: "default" };
    for (const [name, content] of Object.entries(files)) {
      // Replaced whole, as the kubelet's atomic writer swaps a projected volume's files.
      const file = path.join(this.serviceAccountDir, name);
      fs.writeFileSync(`${file}.tmp`, content, { mode: 0o600 });
      fs.renameSync(`${file}.tmp`, file);
    }
  }

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
      const api = !isControlPath(request.url.pathname);
      if (api) for (const observe of this.requestObservers) observe(req.method ?? "GET", req.url ?? "/");
      if (api && this.faults.takeReset()) {
        req.socket.destroy();
        return;
      }
      if (!authenticated(req, this.token)) throw errors.unauthorized();
      if (api) await injectFaults(this.faults);
      request.body = await readBody(req, this.maxBody);
      await route(this.routes, request);
    } catch (error) {
      fail(request, error);
    }
  }
}
