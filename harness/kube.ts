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
} from "@kubernetes/client-node";
import { createHash } from "node:crypto";

const K8S_TYPE = /^kubernetes:([^:]+):([^:]+)$/;

export interface KubeType {
  apiVersion: string;
  kind: string;
  /** `*Patch` resources patch an object someone else owns. */
  patch: boolean;
}

/** `kubernetes:core/v1:ConfigMapPatch` -> v1 ConfigMap (patch); undefined for other resource types. */
export function kubeType(type: string): KubeType | undefined {
  const match = K8S_TYPE.exec(type);
  if (!match) return undefined;
  const [, group, kind] = match;
  const patch = kind.endsWith("Patch");
  return {
    apiVersion: group.replace(/^core\//, ""),
    kind: patch ? kind.slice(0, -"Patch".length) : kind,
    patch,
  };
}

/** The object a registration declares: apiVersion and kind from the type, then the inputs. */
export function manifestOf(type: KubeType, inputs: Record<string, unknown>): KubernetesObject {
  const { apiVersion: _a, kind: _k, ...rest } = inputs;
  return { apiVersion: type.apiVersion, kind: type.kind, ...rest } as KubernetesObject;
}

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
 * One field manager per resource, stable across revisions: a later apply by the same manager drops the
 * fields it no longer declares, and deleting a patch gives its fields back.
 */
export function fieldManager(urn: string): string {
  return `pulumi-harness-${createHash("sha256").update(urn).digest("hex").slice(0, 12)}`;
}

export function describeKubeError(error: unknown): string {
  if (error instanceof ApiException) {
    const body = typeof error.body === "string" ? safeJson(error.body) : error.body;
    const message = (body as { message?: string } | undefined)?.message;
    return `${error.code}${message ? `: ${message}` : ""}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}

export class Cluster {
  private readonly api: KubernetesObjectApi;

  constructor(kubeconfig: string) {
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    this.api = KubernetesObjectApi.makeApiClient(kc);
  }

  /** Server-side apply; a conflict with another manager fails unless `force`. */
  async apply(object: KubernetesObject, manager: string, force: boolean): Promise<KubernetesObject> {
    return this.api.patch(object, undefined, undefined, manager, force, PatchStrategy.ServerSideApply);
  }

  async read(apiVersion: string, kind: string, id: string): Promise<KubernetesObject> {
    const [namespace, name] = id.includes("/") ? id.split("/", 2) : [undefined, id];
    return this.api.read({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } });
  }

  /** Deletes the object; one already gone counts as deleted. */
  async delete(object: KubernetesObject): Promise<void> {
    try {
      await this.api.delete(header(object));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Gives back every field `manager` applied to the object, as deleting a Patch resource does. */
  async relinquish(object: KubernetesObject, manager: string): Promise<void> {
    try {
      await this.api.read(header(object));
    } catch (error) {
      // Applying to an object that is gone would create it.
      if (isNotFound(error)) return;
      throw error;
    }
    await this.apply(header(object), manager, false);
  }
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
