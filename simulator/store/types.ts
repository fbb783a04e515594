/**
 * The contract between the simulator's object store (owned by the API server) and the in-process
 * controllers (machine-api, MCO, OLM, WMCO). Controllers never speak HTTP: they read and write the store
 * directly and react to its events, as real controllers do through informers.
 */
import { KubeObject as BaseObject } from "../../primitives/objects";

/** A stored object always says what it is. */
export interface KubeObject extends BaseObject {
  apiVersion: string;
  kind: string;
}

/** Identifies a stored object. `namespace` is undefined for cluster-scoped kinds. */
export interface ObjectKey {
  /** `<group>/<version>` or `v1` for the core group, as in `apiVersion`. */
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export type StoreEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: StoreEventType;
  /** A deep copy of the object after the change (for DELETED, its last state). */
  object: KubeObject;
}

export interface ListOptions {
  namespace?: string;
  /** Equality-based matchLabels; every pair must match. */
  labels?: Record<string, string>;
  /**
   * Keeps only the objects it accepts, asked before anything is copied: the API server's selectors, so
   * that a list or watch by name costs one object however many the kind has (a thousand watches of
   * one MachineConfigNode each must not copy a thousand objects each).
   */
  where?: (object: Readonly<KubeObject>) => boolean;
}

/**
 * Errors the store throws carry the HTTP status and Kubernetes reason the API server answers with, so
 * controllers and the server share one notion of failure.
 */
export class StoreError extends Error {
  constructor(
    readonly code: 404 | 409 | 422,
    readonly reason: "NotFound" | "AlreadyExists" | "Conflict" | "Invalid",
    message: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

export interface Store {
  /** A deep copy of the object, or undefined. */
  get(key: ObjectKey): KubeObject | undefined;
  /** Deep copies, sorted by namespace then name. */
  list(apiVersion: string, kind: string, options?: ListOptions): KubeObject[];
  /** Sets uid, resourceVersion, generation 1 and creationTimestamp; throws AlreadyExists. */
  create(object: KubeObject): KubeObject;
  /**
   * Replaces the object. A resourceVersion in `object.metadata` that is not current throws Conflict.
   * `status` subresource writes change only `.status`; other writes leave `.status` as stored and bump
   * `metadata.generation` only when `.spec` (or any top-level field but metadata and status) changed.
   */
  update(object: KubeObject, options?: { subresource?: "status" }): KubeObject;
  /**
   * Read-modify-write without conflicts, for controllers: `mutate` gets a copy to change in place.
   * Returns the stored result, or undefined when the object does not exist.
   */
  mutate(
    key: ObjectKey,
    mutate: (object: KubeObject) => void,
    options?: { subresource?: "status" },
  ): KubeObject | undefined;
  /**
   * Deletes as a real server does: with finalizers, sets deletionTimestamp and keeps the object until
   * they are removed; dependents (ownerReferences) are garbage collected. Returns false when absent.
   */
  delete(key: ObjectKey): boolean;
  /** Every change, synchronously after it is stored, in resourceVersion order. Returns unsubscribe. */
  subscribe(listener: (event: StoreEvent) => void): () => void;
}
