/**
 * The plan's pure parts: which property paths a registration changes, which of them replace a
 * Kubernetes object under pulumi-kubernetes' rules and its provider's settings, and a live object's
 * fields read back as inputs. No I/O: the engine (engine.ts) decides the steps with them.
 */
import { isObject } from "../../primitives/objects";
import { stableJson } from "../../primitives/stable-json";
import { PROVIDER_KEY } from "../dynamic";
import { KubeType, normalizeInputs } from "../kube";
import { annotateSecrets, isSecret, markSecret, reveal, secretKeys } from "../secrets";
import type { Props } from "./rpc";

/** pulumi-kubernetes' provider settings that change what a create or a diff does (provider.go, Configure). */
export interface KubeSettings {
  upsertExistingObjects: boolean;
  enableSecretMutable: boolean;
  enableConfigMapMutable: boolean;
  enablePatchForce: boolean;
}

const SETTING_ENV: Record<keyof KubeSettings, string> = {
  upsertExistingObjects: "PULUMI_K8S_UPSERT_EXISTING_OBJECTS",
  enablePatchForce: "PULUMI_K8S_ENABLE_PATCH_FORCE",
  enableSecretMutable: "PULUMI_K8S_ENABLE_SECRET_MUTABLE",
  enableConfigMapMutable: "PULUMI_K8S_ENABLE_CONFIGMAP_MUTABLE",
};

/** A setting from the provider's config when it has it, else from its environment variable; off by default. */
export function kubeSettings(config: (key: string) => unknown, env: NodeJS.ProcessEnv): KubeSettings {
  const on = (key: keyof KubeSettings) => {
    const value = config(key);
    return String(value ?? env[SETTING_ENV[key]]) === "true";
  };
  return {
    upsertExistingObjects: on("upsertExistingObjects"),
    enableSecretMutable: on("enableSecretMutable"),
    enableConfigMapMutable: on("enableConfigMapMutable"),
    enablePatchForce: on("enablePatchForce"),
  };
}

/**
 * Paths whose change replaces a Kubernetes object (diff.go, forceNewProperties): its name and namespace;
 * a Secret's type; a Secret's or ConfigMap's data unless the provider makes them mutable and the object
 * is not `immutable`. Patch resources change in place but for their identity.
 */
export function forceNewPaths(type: KubeType, inputs: Props, settings: KubeSettings): string[] {
  const paths = ["metadata.name", "metadata.namespace"];
  if (type.patch || type.apiVersion !== "v1") return paths;
  const immutable = inputs.immutable === true;
  if (type.kind === "Secret") {
    paths.push("type");
    if (!settings.enableSecretMutable || immutable) paths.push("data", "stringData");
  } else if (type.kind === "ConfigMap" && (!settings.enableConfigMapMutable || immutable)) {
    paths.push("data", "binaryData");
  }
  return paths;
}

/** Whether `path` is `prefix` or lies under it; `*` covers every path (an `ignoreChanges` of everything). */
export const under = (path: string, prefix: string) =>
  prefix === "*" || path === prefix || path.startsWith(`${prefix}.`);

/** `target` with the values `source` has at `paths` (dotted), absent where `source` has none. */
export function withPaths(target: Props, source: Props, paths: string[]): Props {
  if (paths.length === 0) return target;
  const result = structuredClone(target);
  for (const p of paths) {
    const keys = p.split(".");
    const value = keys.reduce<unknown>((o, k) => (o as Props | undefined)?.[k], source);
    let parent = result;
    for (const k of keys.slice(0, -1)) parent = (parent[k] ??= {}) as Props;
    const last = keys[keys.length - 1];
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return result;
}

/** Property paths where `news` differs from `olds` (objects descended into, lists and leaves compared whole). */
export function diffPaths(olds: unknown, news: unknown, prefix = ""): string[] {
  if (isObject(olds) && isObject(news) && !isSecret(olds) && !isSecret(news)) {
    const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort();
    return keys.flatMap((k) => diffPaths(olds[k], news[k], prefix ? `${prefix}.${k}` : k));
  }
  return stableJson(reveal(olds)) === stableJson(reveal(news)) ? [] : [prefix];
}

export const withoutProvider = (props: Props): Props => {
  const { [PROVIDER_KEY]: _p, ...rest } = props;
  return rest;
};

/**
 * The live object pruned to the shape of what was declared, as pulumi-kubernetes reads a resource's
 * inputs back (pruneMap: keys the inputs have, list elements up to their length).
 */
export function pruned(live: unknown, declared: unknown): unknown {
  if (isObject(live) && isObject(declared)) {
    return Object.fromEntries(
      Object.keys(live)
        .filter((k) => k in declared)
        .map((k) => [k, pruned(live[k], declared[k])]),
    );
  }
  if (Array.isArray(live) && Array.isArray(declared)) {
    return declared.slice(0, live.length).map((d, i) => pruned(live[i], d));
  }
  return live;
}

/**
 * A live object's fields as inputs, as pulumi-kubernetes reads them back on refresh and import: the
 * fields the program declared, secret where the program's were and, for a Secret, its data.
 */
export function liveInputs(type: KubeType, live: Props, declaredInputs: Props | undefined): Props {
  const declared = normalizeInputs(type, reveal(declaredInputs ?? {}) as Props);
  const secrets = type.kind === "Secret" ? ["data", "stringData"] : [];
  return markSecret(annotateSecrets(pruned(live, declared), declaredInputs) as Props, [
    ...secretKeys(declaredInputs ?? {}),
    ...secrets,
  ]);
}

/** `namespace/name`, or the name of a cluster-scoped object: the id pulumi-kubernetes gives it. */
export function idOf(live: { metadata?: { name?: string; namespace?: string } }): string {
  const { name, namespace } = live.metadata ?? {};
  return namespace ? `${namespace}/${name}` : String(name);
}
