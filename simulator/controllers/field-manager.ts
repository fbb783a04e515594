/**
 * Controller writes as the API server records them: every write is an Update by the controller's field
 * manager, which takes over the fields whose value it changes (`subresource: status` for status
 * writes). A later server-side apply of another value for such a field then conflicts with the
 * controller, as on OpenShift.
 */
import { ListTypes, trackUpdate } from "../apiserver/managed-fields";
import { KubeObject, Store } from "../store/types";
import { objectKey } from "./util";

export interface FieldOwnership {
  /** How lists of a kind merge, as the API server resolves them for that kind. */
  types(apiVersion: string, kind: string): ListTypes;
  now(): Date;
}

/**
 * `store` with every create and update recorded in managedFields under `manager`; `via: "scale"` for a
 * writer that changes replicas through the scale subresource, as the cluster autoscaler does.
 */
export function managedStore(store: Store, manager: string, ownership: FieldOwnership, via?: "scale"): Store {
  function track(old: KubeObject | undefined, next: KubeObject, subresource?: "status"): void {
    trackUpdate(old, next, {
      manager,
      types: ownership.types(next.apiVersion, next.kind),
      // The store keeps `.status` out of main writes, so they never own it.
      scope: subresource === "status" ? "status" : "main",
      subresource: subresource ?? via,
      now: ownership.now(),
    });
  }
  const managed: Store = {
    get: (key) => store.get(key),
    list: (apiVersion, kind, options) => store.list(apiVersion, kind, options),
    delete: (key) => store.delete(key),
    subscribe: (listener) => store.subscribe(listener),
    create(object) {
      const next = structuredClone(object);
      delete next.metadata.managedFields;
      track(undefined, next);
      return store.create(next);
    },
    update(object, options = {}) {
      const old = store.get(objectKey(object));
      const next = structuredClone(object);
      if (old) {
        // Ownership is the server's bookkeeping: what the writer sends in managedFields does not count.
        next.metadata.managedFields = old.metadata.managedFields;
        track(old, next, options.subresource);
      }
      return store.update(next, options);
    },
    mutate(key, mutate, options = {}) {
      const current = store.get(key);
      if (!current) return undefined;
      mutate(current);
      current.metadata.resourceVersion = undefined;
      return managed.update(current, options);
    },
  };
  return managed;
}
