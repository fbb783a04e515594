/**
 * Whether the cluster a waiter reads is the one its objects went to. A component's objects are applied
 * through its Kubernetes provider and its waiters connect with a kubeconfig: when those reach two
 * clusters, the waiters would wait on objects that never arrive there. The provider reports each object
 * it created with its UID, which the API server assigns once per object and never reuses, so a waiter
 * reading the same name with another UID, or nothing, is on another cluster.
 */
import { createApiClient } from "./api";
import { waitError } from "./converge";
import type { ResourceKind } from "./kinds";
import { withRetry } from "./retry";

/** An object as the provider that applied it reported it. */
export interface CreatedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid: string;
}

/**
 * The REST resource of a kind, guessed as apimachinery's `meta.UnsafeGuessKindToResource` does
 * (kubernetes/apimachinery, pkg/api/meta/restmapper.go): lowercase, then `s`, `es` after s/x/z/ch/sh
 * endings, `ies` after a consonant and `y`. Right for every kind the components create.
 */
export function guessResource(apiVersion: string, kind: string, namespaced: boolean): ResourceKind {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const lower = kind.toLowerCase();
  const plural = /(s|x|z|ch|sh)$/.test(lower)
    ? `${lower}es`
    : /[^aeiou]y$/.test(lower)
      ? `${lower.slice(0, -1)}ies`
      : `${lower}s`;
  return { group, version, plural, kind, namespaced };
}

const nameOf = (o: CreatedObject) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;

/**
 * Fails at once, naming the first mismatch, unless every object in `created` exists with its UID on the
 * cluster of `kubeconfig` (its API server `server`, for the message). Transient API errors are retried
 * up to `timeoutMs`.
 */
export async function checkCreatedObjects(options: {
  kubeconfig: string;
  server: string;
  waiter: string;
  created: readonly CreatedObject[];
  timeoutMs?: number;
}): Promise<void> {
  const { server, waiter, created, timeoutMs = 30_000 } = options;
  const client = createApiClient(options.kubeconfig);
  for (const object of created) {
    const resource = guessResource(object.apiVersion, object.kind, object.namespace !== undefined);
    const live = await withRetry(() => client.get(resource, object.name, object.namespace), { timeoutMs });
    const uid = live?.metadata.uid;
    if (uid === object.uid) continue;
    const found = live ? `holds another ${object.kind} of that name (uid ${uid})` : "does not hold it";
    const message =
      `${nameOf(object)} was created by the component's Kubernetes provider (uid ${object.uid}), but ` +
      `${server}, the cluster of the waiters' kubeconfig, ${found}: the provider and the kubeconfig ` +
      `reach different clusters, and waiting there would never see the objects converge. Leave the ` +
      `component's kubeconfig out (its waiters then connect as its provider does), or give it the ` +
      `kubeconfig of the provider's cluster.`;
    throw waitError("failed", waiter, message, message);
  }
}
