/**
 * What a program's registrations declare, as a rendering: each Kubernetes object's manifest (secrets
 * as `[secret]`) under the file name render writes it to, each waiter's inputs. Used by render and by
 * the testing mocks, without the engine or the Kubernetes client.
 */
import * as path from "node:path";
import { DYNAMIC_TYPE_PREFIX, PROVIDER_KEY } from "./dynamic";
import { kubeType, manifestOf } from "./kube-type";
import { redact } from "./secrets";

export interface RenderedManifest {
  /** Path under the output directory. */
  file: string;
  /** The Pulumi resource that declares it. */
  resource: string;
  patch: boolean;
  manifest: Record<string, unknown>;
}

export interface RenderedWaiter {
  type: string;
  name: string;
  /** Inputs without the kubeconfig and the serialized provider. */
  inputs: Record<string, unknown>;
  /** Characters of the serialized provider it carries (in state, twice: inputs and outputs). */
  providerSize: number;
}

export interface Rendering {
  manifests: RenderedManifest[];
  waiters: RenderedWaiter[];
  errors: string[];
}

const KEY_ORDER = ["apiVersion", "kind", "metadata"];

/** apiVersion, kind and metadata first, the rest as the program declared it. */
function ordered(manifest: Record<string, unknown>): Record<string, unknown> {
  const keys = [
    ...KEY_ORDER.filter((k) => k in manifest),
    ...Object.keys(manifest).filter((k) => !KEY_ORDER.includes(k)),
  ];
  return Object.fromEntries(keys.map((k) => [k, manifest[k]]));
}

function manifestFile(manifest: Record<string, unknown>, patch: boolean): string {
  const apiVersion = String(manifest.apiVersion);
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = String(manifest.kind).toLowerCase();
  const meta = (manifest.metadata ?? {}) as { name?: string; namespace?: string };
  const name = meta.name ?? "unnamed";
  const dir = group ? `${kind}.${group}` : kind;
  return path.join(dir, ...(meta.namespace ? [meta.namespace] : []), `${name}${patch ? ".patch" : ""}.yaml`);
}

/** What registrations declare, as a rendering: each Kubernetes object's manifest, each waiter's inputs. */
export class Renderer {
  private readonly manifests: RenderedManifest[] = [];
  private readonly waiters: RenderedWaiter[] = [];

  /** Adds a custom resource's registration: a manifest, a waiter, or (any other type) nothing. */
  add(type: string, name: string, inputs: Record<string, unknown>): void {
    const k8s = kubeType(type);
    if (k8s) {
      const manifest = ordered(redact(manifestOf(k8s, inputs)) as Record<string, unknown>);
      this.manifests.push({
        file: manifestFile(manifest, k8s.patch),
        resource: name,
        patch: k8s.patch,
        manifest,
      });
    } else if (type.startsWith(DYNAMIC_TYPE_PREFIX)) {
      const { kubeconfig: _k, [PROVIDER_KEY]: provider, ...rest } = inputs;
      this.waiters.push({
        type: type.slice(DYNAMIC_TYPE_PREFIX.length),
        name,
        inputs: redact(rest) as Record<string, unknown>,
        providerSize: String(provider ?? "").length,
      });
    }
  }

  /** The rendering in a stable order (by file, by name), with `errors` and any file two resources declare. */
  rendering(errors: string[]): Rendering {
    const problems = [...errors];
    const seen = new Map<string, string>();
    for (const m of this.manifests) {
      const other = seen.get(m.file);
      if (other) problems.push(`resources ${other} and ${m.resource} both declare ${m.file}`);
      seen.set(m.file, m.resource);
    }
    return {
      manifests: [...this.manifests].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)),
      waiters: [...this.waiters].sort((a, b) => (a.type + a.name < b.type + b.name ? -1 : 1)),
      errors: problems,
    };
  }
}
