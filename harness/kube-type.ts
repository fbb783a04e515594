/**
 * The Kubernetes object a pulumi-kubernetes registration declares, from its type token and inputs:
 * apart from kube.ts, so that what only reads registrations (render, the testing mocks) does not load
 * the Kubernetes client.
 */
import type { KubernetesObject } from "@kubernetes/client-node";

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
