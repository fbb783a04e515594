/**
 * CRDs created and deleted at run time, as kube-apiserver's apiextensions part handles them: the naming
 * and establishing controllers accept a new CRD's names and mark it Established, from which on its kind
 * is served and listed by discovery (customresource_handler.go, ServeHTTP;
 * customresource_discovery_controller.go, sync); a deleted CRD turns Terminating with the cleanup
 * finalizer (registry/customresourcedefinition/etcd.go, REST.Delete), its kind refuses creates, and the
 * finalizer controller deletes its custom resources, then releases the CRD, whose kind is then no longer
 * served (controller/finalizer/crd_finalizer.go, sync). The simulator's own kinds stay served whatever
 * becomes of their CRDs: on OpenShift the cluster-version operator puts those CRDs back.
 */
import { CrdDefinition, crdDefinition, CrdSchemas } from "../schema";
import { KubeObject } from "../store";
import { groupOf, kubeTimestamp, MemoryStore } from "../store/memory-store";
import { ResourceRegistry } from "./resources";
import { ApiError } from "./status";
import type { Target } from "./target";

const CRD = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" };
export const CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

const conditionsOf = (crd: KubeObject) =>
  ((crd.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
const isTrue = (crd: KubeObject, type: string) =>
  conditionsOf(crd).some((c) => c.type === type && c.status === "True");

function withCondition(crd: KubeObject, condition: Condition, now: Date): void {
  const others = conditionsOf(crd).filter((c) => c.type !== condition.type);
  crd.status = {
    ...(crd.status as object),
    conditions: [...others, { ...condition, lastTransitionTime: kubeTimestamp(now) }],
  };
}

export const isCrd = (target: Target) =>
  target.resource.group === "apiextensions.k8s.io" && target.resource.kind === CRD.kind;

/** A create of a kind whose CRD is being deleted (customresource_handler.go, serveResource). */
export function refuseTerminating(target: Target): void {
  if (!target.resource.terminating) return;
  throw new ApiError(
    405,
    "MethodNotAllowed",
    "create not allowed while custom resource definition is terminating",
    {
      group: target.resource.group,
      kind: target.resource.plural,
    },
  );
}

/**
 * What REST.Delete does to a CRD on the first request to delete it, before the store deletes it: the
 * cleanup finalizer, so that it stays until its objects are gone, and the Terminating condition.
 */
export function prepareCrdDelete(store: MemoryStore, name: string, now: Date): void {
  store.mutate({ ...CRD, name }, (crd) => {
    if (crd.metadata.deletionTimestamp !== undefined) return;
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
  });
  store.mutate(
    { ...CRD, name },
    (crd) =>
      withCondition(
        crd,
        {
          type: "Terminating",
          status: "True",
          reason: "InstanceDeletionPending",
          message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        },
        now,
      ),
    { subresource: "status" },
  );
}

/**
 * A CRD's status once the naming controller accepted its names and the establishing controller
 * established it (naming_controller.go, calculateNamesAndConditions; establishing_controller.go, sync):
 * from then on its kind is served, and `kubectl wait --for=condition=Established` returns.
 */
export function establishCrd(crd: KubeObject, now: Date): void {
  crd.status = { ...(crd.status as object), acceptedNames: (crd.spec as { names?: unknown }).names };
  withCondition(
    crd,
    { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" },
    now,
  );
  withCondition(
    crd,
    {
      type: "Established",
      status: "True",
      reason: "InitialNamesAccepted",
      message: "the initial names have been accepted",
    },
    now,
  );
  const versions = (crd.spec as { versions?: Array<{ name: string; storage?: boolean }> }).versions ?? [];
  (crd.status as { storedVersions?: string[] }).storedVersions = versions
    .filter((v) => v.storage)
    .map((v) => v.name);
}

/**
 * Keeps `registry` serving the kinds of the store's established CRDs, and establishes
 * and finalizes CRDs as their controllers do. Returns the function that stops it.
 */
export function serveDefinedKinds(
  store: MemoryStore,
  registry: ResourceRegistry,
  now: () => Date,
  loaded?: CrdSchemas,
): () => void {
  /** The schemas of the simulator's own kinds whose CRD was changed through the API, by CRD name. */
  const changed = new Map<string, { resourceVersion?: string; schemas?: CrdSchemas }>();
  /**
   * A CRD of one of the simulator's own kinds validates its kind from the moment it differs from the
   * CRD the simulator loaded, as an updated CRD does on a cluster (customresource_handler.go,
   * getOrCreateServingInfoFor, rebuilt when the CRD changes); one like the loaded CRD keeps the loaded
   * schemas, compiled once per process.
   */
  const ownSchemas = (crd: KubeObject, definition: CrdDefinition): CrdSchemas | undefined => {
    const known = changed.get(crd.metadata.name);
    if (known && known.resourceVersion === crd.metadata.resourceVersion) return known.schemas;
    const original = loaded?.definition(definition.group, definition.kind);
    const versions = (o: object) => JSON.stringify((o as { spec?: { versions?: unknown } }).spec?.versions);
    const same = original !== undefined && versions(original.object) === versions(crd);
    const schemas = same ? undefined : new CrdSchemas([definition]);
    changed.set(crd.metadata.name, { resourceVersion: crd.metadata.resourceVersion, schemas });
    return schemas;
  };
  /** The CRDs as their last events left them: a CRD's event need not copy every other CRD again. */
  const crds = new Map(store.list(CRD.apiVersion, CRD.kind).map((crd) => [crd.metadata.name, crd]));
  const sync = () => {
    const served = [...crds.values()].filter((crd) => isTrue(crd, "Established"));
    const definitions: CrdDefinition[] = [];
    const overrides = new Map<string, CrdSchemas>();
    for (const crd of served) {
      const definition = crdDefinition(crd, "(created through the API)");
      if (!registry.isBuiltIn(definition.group, definition.kind)) {
        definitions.push(definition);
        continue;
      }
      const schemas = ownSchemas(crd, definition);
      if (schemas) overrides.set(`${definition.group}/${definition.kind}`, schemas);
    }
    registry.define(
      definitions,
      new Set(served.filter((crd) => isTrue(crd, "Terminating")).map((crd) => crd.metadata.name)),
      overrides,
    );
  };
  const establish = (crd: KubeObject) =>
    store.mutate({ ...CRD, name: crd.metadata.name }, (o) => establishCrd(o, now()), {
      subresource: "status",
    });
  /** The kinds of the CRDs being deleted, by CRD name: each of their objects' deletion is looked at. */
  const terminating = new Map<string, { apiVersion: string; kind: string }>();
  /** crd_finalizer.go, sync: the kind's objects deleted, then the finalizer removed once none is left. */
  const finalize = (name: string) => {
    const { apiVersion, kind } = terminating.get(name)!;
    for (const o of store.list(apiVersion, kind)) {
      if (o.metadata.deletionTimestamp !== undefined) continue;
      store.delete({ apiVersion, kind, namespace: o.metadata.namespace, name: o.metadata.name });
    }
    if (store.list(apiVersion, kind).length > 0) return;
    terminating.delete(name);
    store.mutate({ ...CRD, name }, (o) => {
      o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    });
  };
  sync();
  return store.subscribe(({ type, object }) => {
    if (object.kind === CRD.kind && object.apiVersion.startsWith("apiextensions.k8s.io/")) {
      const { name, deletionTimestamp, finalizers } = object.metadata;
      if (type === "DELETED") crds.delete(name);
      else crds.set(name, object);
      if (type !== "DELETED" && deletionTimestamp === undefined && !isTrue(object, "Established"))
        establish(object);
      if (
        type !== "DELETED" &&
        deletionTimestamp !== undefined &&
        (finalizers ?? []).includes(CLEANUP_FINALIZER) &&
        !terminating.has(name)
      ) {
        const definition = crdDefinition(object, "");
        const storage = definition.versions.find((v) => v.storage) ?? definition.versions[0];
        terminating.set(name, { apiVersion: `${definition.group}/${storage.name}`, kind: definition.kind });
        finalize(name);
      }
      sync();
      return;
    }
    if (type !== "DELETED" || terminating.size === 0) return;
    // An object of a terminating CRD's kind went: its CRD may be released now.
    for (const [name, of] of [...terminating]) {
      if (object.kind === of.kind && groupOf(object.apiVersion) === groupOf(of.apiVersion)) finalize(name);
    }
  });
}
