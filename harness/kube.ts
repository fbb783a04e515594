/**
 * Kubernetes resources of pulumi-kubernetes as the harness applies them: the object a registration
 * declares (from its type token and inputs), and server-side apply, read and delete with
 * @kubernetes/client-node, as pulumi-kubernetes does them.
 */
import {
  ApiException,
  KubeConfig,
  KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  VersionApi,
} from "@kubernetes/client-node";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { currentContext } from "../provider/waiting/kubeconfig";
import { apiError, ApiError, parseRetryAfter, sendRetried } from "../provider/waiting/retry";

export { kubeType, manifestOf, type KubeType } from "./kube-type";
import type { KubeType } from "./kube-type";

/**
 * Inputs as pulumi-kubernetes normalizes them before it diffs or reads back: a Secret's `stringData`
 * becomes base64 `data` (what the API server stores; `stringData` is write-only). Values are revealed;
 * the caller marks secrets.
 */
export function normalizeInputs(type: KubeType, inputs: Record<string, unknown>): Record<string, unknown> {
  const { stringData, ...rest } = inputs as { stringData?: Record<string, string>; data?: unknown };
  if (type.apiVersion !== "v1" || type.kind !== "Secret" || !stringData) return inputs;
  const data = { ...(rest.data as Record<string, string> | undefined) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value).toString("base64");
  return { ...rest, data };
}

export const PATCH_FORCE_ANNOTATION = "pulumi.com/patchForce";

/**
 * The field manager the harness gave a resource before it kept pulumi-kubernetes' own name in the
 * state (`__fieldManager`): derived from the URN, so that a checkpoint an earlier release wrote keeps
 * applying as the same manager.
 */
export function fieldManager(urn: string): string {
  return `pulumi-kubernetes-${createHash("sha256").update(urn).digest("hex").slice(0, 8)}`;
}

export function describeKubeError(error: unknown): string {
  if (error instanceof ApiException) {
    const body = typeof error.body === "string" ? safeJson(error.body) : error.body;
    const message = (body as { message?: string } | undefined)?.message;
    return `${error.code}${message ? `: ${message}` : ""}`;
  }
  // A request that was tried again and gave up (`retried`): its status, then what it says of itself.
  const status = (error as ApiError | undefined)?.status;
  if (error instanceof Error && status !== undefined) return `${status}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}

/**
 * What the provider's Go error prints for a failed request: an API status's message alone, client-go's
 * NoKindMatchError for a kind not served, else the error's message.
 */
export function goErrorMessage(error: unknown, type?: { apiVersion: string; kind: string }): string {
  if (type && isNoMatch(error)) return `no matches for kind "${type.kind}" in version "${type.apiVersion}"`;
  if (error instanceof ApiException) return describeKubeError(error).replace(/^\d+: /, "");
  return error instanceof Error ? error.message : String(error);
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}

/**
 * Whether the API server does not serve the object's apiVersion and kind (client-go's NoMatch error, a
 * CRD not established yet): @kubernetes/client-node finds the kind through discovery and fails so.
 */
export function isNoMatch(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return (
    message.startsWith("Unrecognized API version and kind") ||
    (isNotFound(error) && message.startsWith("Failed to fetch resource metadata for"))
  );
}

export function isConflict(error: unknown): boolean {
  return error instanceof ApiException && error.code === 409 && !isAlreadyExists(error);
}

export function isAlreadyExists(error: unknown): boolean {
  return (
    error instanceof ApiException && error.code === 409 && /already exists/.test(describeKubeError(error))
  );
}

/**
 * The manager of client-side creates: pulumi-kubernetes creates with this static name, and its first
 * server-side update moves these fields to the resource's own manager (await.go, Creation and
 * fixCSAFieldManagers).
 */
export const CSA_FIELD_MANAGER = "pulumi-kubernetes";

/** Managers whose fields a server-side update takes over, as fixCSAFieldManagers lists them (name, operation). */
const TAKEN_OVER: [string, string][] = [
  ["kubectl", "Apply"],
  ["kubectl", "Update"],
  ["before-first-apply", "Update"],
  [CSA_FIELD_MANAGER, "Update"],
  ["pulumi-kubernetes.exe", "Update"],
  ["pulumi-resource-kubernetes", "Update"],
];

/** What pulumi-kubernetes adds to a failed create of an object that exists (await.go, Creation). */
const ALREADY_EXISTS_HELP = `The resource already exists in the cluster. This can happen when:

  - Renaming a Pulumi resource: use an alias to preserve the identity,
    or use deleteBeforeReplace if the resource needs replacement.
  - Managing an existing resource: use a Patch resource (e.g. NamespacePatch)
    to manage specific fields without owning the resource lifecycle.
  - Adopting a resource into Pulumi: use \`pulumi import\`. Note that
    protected resources (e.g. kube-system) cannot be deleted on destroy.
  - Intentional upsert: set upsertExistingObjects on the provider to allow
    server-side apply to update existing objects on create.`;

/** How long pulumi-kubernetes awaits a create, update or delete when neither customTimeouts nor the annotation say. */
export const DEFAULT_TIMEOUT_SECONDS = 600;
const TIMEOUT_ANNOTATION = "pulumi.com/timeoutSeconds";
const PROPAGATION_ANNOTATION = "pulumi.com/deletionPropagationPolicy";
/** How often an awaited create, update or delete reads the object. */
const POLL_MS = 100;

/**
 * An operation's deadline: its customTimeouts, else the `pulumi.com/timeoutSeconds` annotation, else
 * 10 minutes (metadata.TimeoutDuration and the awaiters' default).
 */
export function timeoutSeconds(object: KubernetesObject, customSeconds: number): number {
  if (customSeconds > 0) return customSeconds;
  const annotated = Number.parseInt(object.metadata?.annotations?.[TIMEOUT_ANNOTATION] ?? "", 10);
  return Number.isNaN(annotated) ? DEFAULT_TIMEOUT_SECONDS : annotated;
}

/** Foreground unless the object's annotation says orphan or background (metadata.DeletionPropagation). */
function propagationOf(object: KubernetesObject): string {
  const policy = object.metadata?.annotations?.[PROPAGATION_ANNOTATION]?.toLowerCase();
  return policy === "orphan" ? "Orphan" : policy === "background" ? "Background" : "Foreground";
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A failure of @kubernetes/client-node as the waiting core's client reports one, for the per-request
 * retry policy both follow: an answer's status, Retry-After and Status message, or the network code
 * of a request that got none (client-node puts the fetch failure's under `cause`).
 */
function asApiError(error: unknown): ApiError {
  if (error instanceof ApiException) {
    const headers = (error.headers ?? {}) as Record<string, string>;
    const header = Object.entries(headers).find(([k]) => k.toLowerCase() === "retry-after")?.[1];
    const body = (typeof error.body === "string" ? safeJson(error.body) : error.body) as
      { reason?: string; message?: string } | undefined;
    return apiError(body?.message || `HTTP ${error.code}`, {
      status: error.code as number,
      reason: body?.reason,
      retryAfterMs: parseRetryAfter(header),
    });
  }
  const failed = (error ?? {}) as {
    message?: string;
    code?: string;
    cause?: { code?: string; message?: string };
  };
  return apiError(failed.cause?.message ?? failed.message ?? String(error), {
    code: failed.code ?? failed.cause?.code,
  });
}

/**
 * Runs a request of `method` on `what`, sent again as client-go's rest client does for
 * pulumi-kubernetes (provider/waiting/retry.ts, sendRetried): a 429 or 5xx with Retry-After after it,
 * a GET whose connection was reset after a second, at most 10 times; one that still fails names
 * itself and its tries.
 */
function retried<T>(
  method: string,
  what: string,
  request: () => Promise<T>,
  pause: (ms: number) => Promise<void>,
): Promise<T> {
  return sendRetried({ method, path: what }, request, { sleep: pause, asApiError });
}

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  fieldsV1?: Record<string, unknown>;
  [key: string]: unknown;
}

function mergeFields(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = result[key];
    result[key] =
      mine && typeof mine === "object" && value && typeof value === "object"
        ? mergeFields(mine as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return result;
}

export class Cluster {
  private api!: KubernetesObjectApi;
  private versionApi!: VersionApi;
  private minor?: Promise<number>;
  /** The token file of the kubeconfig's user, as client-go names it (`tokenFile`), and what it held. */
  private readonly tokenFile?: string;
  private token?: string;

  /** `pause`: how a request waits before it is sent again (the real time unless a test gives its own). */
  constructor(
    private readonly kubeconfig: string,
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {
    const user = currentContext(kubeconfig).user ?? {};
    if (typeof user.tokenFile === "string" && user.tokenFile !== "" && !user.token)
      this.tokenFile = user.tokenFile;
    this.connect();
  }

  /**
   * Makes the clients from the kubeconfig. client-go reads a user's `tokenFile` (the in-cluster
   * configuration's, provider/dynamic/credentials.ts), which client-node knows only as the file of its
   * `tokenFile` auth provider (FileAuth, read again every minute, as client-go's cached token source).
   */
  private connect(): void {
    const kc = new KubeConfig();
    kc.loadFromString(this.kubeconfig);
    if (this.tokenFile) {
      const name = kc.getCurrentUser()?.name;
      const authProvider = { name: "tokenFile", config: { tokenFile: this.tokenFile } };
      kc.users = kc.users.map((u) => (u.name === name ? { ...u, authProvider } : u));
      this.token = fs.readFileSync(this.tokenFile, "utf8");
    }
    this.api = KubernetesObjectApi.makeApiClient(kc);
    this.versionApi = kc.makeApiClient(VersionApi);
  }

  /**
   * After a 401: whether the token file now holds another token than the clients read, in which case
   * they are made again to read it. A kubelet-rotated token stays valid until it expires, which a
   * minute's cache outlives; a token revoked at once (the simulator's rotateToken) is met this way, as
   * the waiting core's client meets it (api.ts, `renewed`).
   */
  private renewed(error: unknown): boolean {
    if (!(error instanceof ApiException && error.code === 401) || !this.tokenFile) return false;
    if (fs.readFileSync(this.tokenFile, "utf8") === this.token) return false;
    this.connect();
    return true;
  }

  /** Sends a request of `method` on `object` (or a path) as client-go's rest client does (`retried`). */
  private async send<T>(
    method: string,
    object: KubernetesObject | string,
    request: () => Promise<T>,
  ): Promise<T> {
    const what = typeof object === "string" ? object : describeObject(object);
    try {
      return await retried(method, what, request, this.pause);
    } catch (error) {
      if (!this.renewed(error)) throw error;
      return retried(method, what, request, this.pause);
    }
  }

  /** The server's Kubernetes minor version (`/version`, `32+` read as 32), asked once. */
  serverMinor(): Promise<number> {
    this.minor ??= this.send("GET", "/version", () => this.versionApi.getCode()).then((v) =>
      Number.parseInt(v.minor, 10),
    );
    return this.minor;
  }

  /**
   * A client-side create, as pulumi-kubernetes creates unless its provider upserts: an object that
   * already exists fails with AlreadyExists and the provider's advice. `dryRun`: checked, not stored.
   */
  async create(object: KubernetesObject, dryRun = false): Promise<KubernetesObject> {
    const dry = dryRun ? "All" : undefined;
    try {
      return await this.send("POST", object, () =>
        this.api.create(object, undefined, dry, CSA_FIELD_MANAGER),
      );
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      throw new Error(`${goErrorMessage(error)}\n\n${ALREADY_EXISTS_HELP}`, { cause: error });
    }
  }

  /**
   * Moves the fields of client-side writers (pulumi-kubernetes' own create, kubectl apply) to `manager`
   * as its applied fields, so that its server-side update does not conflict with them (fixCSAFieldManagers).
   */
  async takeOverFields(live: KubernetesObject, manager: string): Promise<KubernetesObject> {
    const entries = (live.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
    const taken = (e: ManagedFieldsEntry) =>
      (e.manager === manager && e.operation === "Apply") ||
      TAKEN_OVER.some(([name, operation]) => e.manager === name && e.operation === operation);
    const moved = entries.filter(taken);
    if (!moved.some((e) => !(e.manager === manager && e.operation === "Apply"))) return live;
    const merged: ManagedFieldsEntry = {
      ...moved[0],
      manager,
      operation: "Apply",
      fieldsV1: moved.reduce((fields, e) => mergeFields(fields, e.fieldsV1 ?? {}), {}),
    };
    const managedFields = [...entries.filter((e) => !taken(e)), merged];
    const patch = { ...header(live), metadata: { ...header(live).metadata, managedFields } };
    return this.send("PATCH", live, () =>
      this.api.patch(
        patch as KubernetesObject,
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.MergePatch,
      ),
    );
  }

  /** Server-side apply; a conflict with another manager fails unless `force`. `dryRun`: checked, not stored. */
  async apply(
    object: KubernetesObject,
    manager: string,
    force: boolean,
    dryRun = false,
  ): Promise<KubernetesObject> {
    const dry = dryRun ? "All" : undefined;
    return this.send("PATCH", object, () =>
      this.api.patch(object, undefined, dry, manager, force, PatchStrategy.ServerSideApply),
    );
  }

  async read(apiVersion: string, kind: string, id: string): Promise<KubernetesObject> {
    const [namespace, name] = id.includes("/") ? id.split("/", 2) : [undefined, id];
    const target = { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } };
    return this.send("GET", target, () => this.api.read(target));
  }

  /**
   * Reads the object until `met` holds of it (undefined: the object is gone) or `timeoutSeconds` pass,
   * as the provider's awaiters watch it; returns whether it was met and the last object read.
   */
  async until(
    object: KubernetesObject,
    met: (live: KubernetesObject | undefined) => boolean,
    timeoutSeconds: number,
  ): Promise<{ met: boolean; live?: KubernetesObject }> {
    const target = header(object);
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      let live: KubernetesObject | undefined;
      try {
        live = await this.send("GET", target, () => this.api.read(target));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      if (met(live)) return { met: true, live };
      if (Date.now() >= deadline) return { met: false, live };
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
  }

  /**
   * Deletes the object with its propagation policy (foreground by default) and waits until it is gone,
   * as await.Deletion does; past `timeoutSeconds` the delete fails. One already gone counts as deleted.
   */
  async delete(object: KubernetesObject, timeoutSeconds = DEFAULT_TIMEOUT_SECONDS): Promise<void> {
    const target = header(object);
    try {
      await this.send("DELETE", target, () =>
        this.api.delete(target, undefined, undefined, undefined, undefined, propagationOf(object)),
      );
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    const { met, live } = await this.until(object, (o) => o === undefined, timeoutSeconds);
    if (met) return;
    const finalizers = live?.metadata?.finalizers ?? [];
    throw new Error(
      `timed out after ${timeoutSeconds}s waiting for ${object.kind} ${target.metadata.name} to be deleted` +
        (finalizers.length > 0 ? ` (finalizers: ${finalizers.join(", ")})` : ""),
    );
  }

  /** Gives back every field `manager` applied to the object, as deleting a Patch resource does. */
  async relinquish(object: KubernetesObject, manager: string): Promise<void> {
    try {
      await this.send("GET", object, () => this.api.read(header(object)));
    } catch (error) {
      // Applying to an object that is gone would create it.
      if (isNotFound(error)) return;
      throw error;
    }
    await this.apply(header(object), manager, false);
  }
}

/** `MachineSet openshift-machine-api/infra-a`, as failures name what they were about. */
function describeObject(object: KubernetesObject): string {
  const { name, namespace } = object.metadata ?? {};
  return `${object.apiVersion} ${object.kind} ${namespace ? `${namespace}/` : ""}${name ?? ""}`;
}

function header(object: KubernetesObject): KubernetesObject & { metadata: { name: string } } {
  const { name, namespace } = object.metadata ?? {};
  if (!name) throw new Error(`a ${object.kind} without metadata.name`);
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
  };
}
