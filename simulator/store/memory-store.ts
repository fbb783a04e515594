import { OwnerReference } from "../../primitives/objects";
import { randomUUID } from "node:crypto";
import { KubeObject, ListOptions, ObjectKey, Store, StoreError, StoreEvent, StoreEventType } from "./types";

/** How dependents are treated when their owner is deleted, as `DeleteOptions.propagationPolicy`. */
export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  /** Delete only if the stored object still has this uid / resourceVersion (409 Conflict otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface MemoryStoreOptions {
  /** How many events are kept for watches resuming from an older resourceVersion. Default 1000. */
  historyLimit?: number;
  /** Source of timestamps; the simulator's clock may run faster than the wall clock. */
  now?: () => Date;
}

/** A stored event together with the resourceVersion it was written at. */
export interface HistoryEvent extends StoreEvent {
  resourceVersion: number;
}

/** Thrown by `eventsSince` when the requested resourceVersion has left the history window. */
export class ResourceVersionTooOldError extends Error {
  constructor(
    readonly requested: number,
    readonly oldestAvailable: number,
  ) {
    super(`too old resource version: ${requested} (${oldestAvailable})`);
    this.name = "ResourceVersionTooOldError";
  }
}

const FOREGROUND_FINALIZER = "foregroundDeletion";
/** `spec.finalizers` entry of a Namespace, owned by the namespace controller. */
const NAMESPACE_FINALIZER = "kubernetes";
const ORPHAN_FINALIZER = "orphan";

/** `2026-01-02T03:04:05Z`: Kubernetes timestamps carry whole seconds. */
export function kubeTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}

/** The API group of an apiVersion; "" for the core group. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * A deep copy of what the store keeps: plain JSON objects and arrays, walked (several times cheaper than
 * structuredClone, and the store copies on every write, read and watch event). Anything else a caller put
 * in (a Date) is structured-cloned; a `__proto__` key stays an own property, as JSON.parse makes it.
 */
function copy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: copy(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = copy(item);
    }
  }
  return out as T;
}

/** Everything but metadata and status: the part whose changes bump `metadata.generation`. */
function specPart(object: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) {
    if (k !== "metadata" && k !== "status" && k !== "apiVersion" && k !== "kind") rest[k] = v;
  }
  return rest;
}

function withoutManagedTimes(object: KubeObject): KubeObject {
  const entries = object.metadata.managedFields;
  if (!Array.isArray(entries)) return object;
  const managedFields = entries.map((e) => ({ ...(e as object), time: undefined }));
  return { ...object, metadata: { ...object.metadata, managedFields } };
}

function describe(key: ObjectKey): string {
  const group = groupOf(key.apiVersion);
  return group ? `${key.kind}.${group} "${key.name}"` : `${key.kind} "${key.name}"`;
}

/**
 * The simulator's etcd: a versioned in-memory object store with the object lifecycle of a Kubernetes API
 * server (resourceVersion, generation, finalizers, garbage collection, status subresource). Objects are
 * keyed by API group rather than version, so a kind served under several versions is stored once.
 */
export class MemoryStore implements Store {
  private readonly objects = new Map<string, KubeObject>();
  private readonly keysByUid = new Map<string, string>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private readonly history: HistoryEvent[] = [];
  private readonly historyLimit: number;
  private readonly now: () => Date;
  private revision = 0;
  /** The newest resourceVersion dropped from the history; resuming at or after it is still possible. */
  private compacted = 0;
  private readonly pending: StoreEvent[] = [];
  private dispatching = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.historyLimit = Math.max(1, options.historyLimit ?? 1000);
    this.now = options.now ?? (() => new Date());
  }

  /** The resourceVersion of the latest write, as lists report it. */
  get resourceVersion(): string {
    return String(this.revision);
  }

  get(key: ObjectKey): KubeObject | undefined {
    const stored = this.objects.get(this.keyOf(key));
    return stored && this.out(stored, key.apiVersion);
  }

  list(apiVersion: string, kind: string, options: ListOptions = {}): KubeObject[] {
    const group = groupOf(apiVersion);
    const result: KubeObject[] = [];
    for (const object of this.objects.values()) {
      if (object.kind !== kind || groupOf(object.apiVersion) !== group) continue;
      if (options.namespace !== undefined && object.metadata.namespace !== options.namespace) continue;
      if (options.labels && !selectorMatches({ matchLabels: options.labels }, object.metadata.labels))
        continue;
      if (options.where && !options.where(object)) continue;
      result.push(this.out(object, apiVersion));
    }
    // Byte order, as the real server lists (etcd keys), not locale order.
    const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return result.sort(
      (a, b) =>
        compare(a.metadata.namespace ?? "", b.metadata.namespace ?? "") ||
        compare(a.metadata.name, b.metadata.name),
    );
  }

  create(object: KubeObject): KubeObject {
    const key = this.keyFromObject(object);
    const storeKey = this.keyOf(key);
    if (this.objects.has(storeKey)) {
      throw new StoreError(409, "AlreadyExists", `${describe(key)} already exists`);
    }
    const stored = copy(object);
    const meta = stored.metadata;
    for (const field of ["resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"]) {
      delete meta[field];
    }
    if (meta.namespace === undefined || meta.namespace === "") delete meta.namespace;
    meta.uid = randomUUID();
    meta.generation = 1;
    meta.creationTimestamp = kubeTimestamp(this.now());
    meta.resourceVersion = String(++this.revision);
    this.objects.set(storeKey, stored);
    this.keysByUid.set(meta.uid, storeKey);
    this.record("ADDED", stored);
    return copy(stored);
  }

  update(object: KubeObject, options: { subresource?: "status" } = {}): KubeObject {
    const key = this.keyFromObject(object);
    const storeKey = this.keyOf(key);
    const old = this.objects.get(storeKey);
    if (!old) throw new StoreError(404, "NotFound", `${describe(key)} not found`);
    const rv = object.metadata.resourceVersion;
    if (rv !== undefined && rv !== "" && rv !== old.metadata.resourceVersion) {
      throw new StoreError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${describe(key)}: the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    if (object.metadata.uid !== undefined && object.metadata.uid !== old.metadata.uid) {
      throw new StoreError(
        409,
        "Conflict",
        `Precondition failed: UID in precondition: ${object.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    let next: KubeObject;
    if (options.subresource === "status") {
      next = copy(old);
      if (object.status === undefined) delete next.status;
      else next.status = copy(object.status);
      // Field ownership is server bookkeeping that status writes update too (the API server tracks it).
      if (object.metadata.managedFields !== undefined)
        next.metadata.managedFields = copy(object.metadata.managedFields);
    } else {
      next = copy(object);
      if (old.status === undefined) delete next.status;
      else next.status = copy(old.status);
      const meta = next.metadata;
      // Identity and lifecycle fields belong to the server, whatever the client sends.
      meta.uid = old.metadata.uid;
      meta.creationTimestamp = old.metadata.creationTimestamp;
      meta.generation = old.metadata.generation;
      if (old.metadata.deletionTimestamp === undefined) delete meta.deletionTimestamp;
      else meta.deletionTimestamp = old.metadata.deletionTimestamp;
      if (meta.namespace === undefined || meta.namespace === "") delete meta.namespace;
      if (old.metadata.deletionTimestamp !== undefined) {
        const before = new Set(old.metadata.finalizers ?? []);
        const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
        if (added.length > 0) {
          throw new StoreError(
            422,
            "Invalid",
            `${describe(key)} is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          );
        }
      }
      if (!jsonEqual(specPart(old), specPart(next))) meta.generation = (old.metadata.generation ?? 0) + 1;
    }
    next.apiVersion = old.apiVersion;
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    // Like the API server, a write changing nothing but the times of managedFields entries is no write:
    // otherwise re-applying the same configuration would write whenever the clock's second turned.
    if (jsonEqual(withoutManagedTimes(old), withoutManagedTimes(next))) return this.out(old, key.apiVersion);
    next.metadata.resourceVersion = String(++this.revision);
    if (next.metadata.finalizers?.length === 0) delete next.metadata.finalizers;
    if (next.metadata.deletionTimestamp !== undefined && !hasFinalizers(next)) {
      this.remove(storeKey, next);
      return this.out(next, key.apiVersion);
    }
    this.objects.set(storeKey, next);
    this.record("MODIFIED", next);
    return this.out(next, key.apiVersion);
  }

  mutate(
    key: ObjectKey,
    mutate: (object: KubeObject) => void,
    options: { subresource?: "status" } = {},
  ): KubeObject | undefined {
    const current = this.get(key);
    if (!current) return undefined;
    mutate(current);
    current.metadata.resourceVersion = undefined;
    return this.update(current, options);
  }

  delete(key: ObjectKey, options: DeleteOptions = {}): boolean {
    const storeKey = this.keyOf(key);
    const old = this.objects.get(storeKey);
    if (!old) return false;
    const pre = options.preconditions;
    if (pre?.uid !== undefined && pre.uid !== old.metadata.uid) {
      throw new StoreError(
        409,
        "Conflict",
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw new StoreError(
        409,
        "Conflict",
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    }
    const policy = options.propagationPolicy ?? "Background";
    const finalizers = [...(old.metadata.finalizers ?? [])];
    if (policy === "Foreground" && this.dependentsOf(old).length > 0) finalizers.push(FOREGROUND_FINALIZER);
    if (policy === "Orphan") finalizers.push(ORPHAN_FINALIZER);
    const namespace = isNamespace(old);
    const holdNamespace =
      namespace && (hasFinalizers(old) || this.namespaceContent(old.metadata.name).length > 0);
    if (finalizers.length === 0 && !holdNamespace) {
      const next = copy(old);
      next.metadata.resourceVersion = String(++this.revision);
      this.remove(storeKey, next);
      return true;
    }
    if (old.metadata.deletionTimestamp !== undefined) return true;
    const next = copy(old);
    next.metadata.deletionTimestamp = kubeTimestamp(this.now());
    if (finalizers.length > 0) next.metadata.finalizers = [...new Set(finalizers)];
    if (namespace) {
      // The namespace controller's part: Terminating until its content is gone, then released.
      const spec = (next.spec ?? {}) as { finalizers?: string[] };
      next.spec = { ...spec, finalizers: [...new Set([...(spec.finalizers ?? []), NAMESPACE_FINALIZER])] };
      next.status = { ...(next.status as object), phase: "Terminating" };
    }
    next.metadata.resourceVersion = String(++this.revision);
    this.objects.set(storeKey, next);
    this.record("MODIFIED", next);
    if (namespace) {
      for (const object of this.namespaceContent(old.metadata.name)) this.delete(this.keyFromObject(object));
      this.finalizeNamespace(old.metadata.name);
    }
    if (policy === "Orphan") this.orphanDependents(next);
    if (policy === "Foreground") {
      for (const dependent of this.dependentsOf(next)) {
        this.delete(this.keyFromObject(dependent), { propagationPolicy: "Foreground" });
      }
    }
    return true;
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    // Wrapped so that subscribing the same function twice yields two independent subscriptions.
    const entry = (event: StoreEvent) => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /**
   * Events written after `resourceVersion`, oldest first, for a watch resuming there. Throws
   * ResourceVersionTooOldError when some of them have already left the history window.
   */
  eventsSince(resourceVersion: number): HistoryEvent[] {
    if (resourceVersion < this.compacted) {
      throw new ResourceVersionTooOldError(resourceVersion, this.compacted);
    }
    const result: HistoryEvent[] = [];
    for (const event of this.history) {
      if (event.resourceVersion > resourceVersion) {
        result.push({ type: event.type, object: copy(event.object), resourceVersion: event.resourceVersion });
      }
    }
    return result;
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get oldestResumableVersion(): number {
    return this.compacted;
  }

  private keyOf(key: ObjectKey): string {
    return [groupOf(key.apiVersion), key.kind, key.namespace ?? "", key.name].join("\u0000");
  }

  private keyFromObject(object: KubeObject): ObjectKey {
    if (!object || typeof object !== "object" || !object.metadata || typeof object.metadata !== "object") {
      throw new StoreError(422, "Invalid", "object has no metadata");
    }
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string" || !object.kind) {
      throw new StoreError(422, "Invalid", "object has no apiVersion or kind");
    }
    if (typeof object.metadata.name !== "string" || object.metadata.name === "") {
      throw new StoreError(
        422,
        "Invalid",
        `${object.kind} is invalid: metadata.name: Required value: name is required`,
      );
    }
    const namespace = object.metadata.namespace;
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      namespace: typeof namespace === "string" && namespace !== "" ? namespace : undefined,
      name: object.metadata.name,
    };
  }

  private out(object: KubeObject, apiVersion: string): KubeObject {
    const result = copy(object);
    // Versions of one group share storage and convert with strategy None: only apiVersion changes.
    result.apiVersion = apiVersion;
    return result;
  }

  private dependentsOf(owner: KubeObject): KubeObject[] {
    const uid = owner.metadata.uid;
    return [...this.objects.values()].filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === uid));
  }

  /** Final removal: the object leaves the store, then its dependents and namespace content follow. */
  private remove(storeKey: string, last: KubeObject): void {
    this.objects.delete(storeKey);
    if (last.metadata.uid) this.keysByUid.delete(last.metadata.uid);
    this.record("DELETED", last);
    this.collectGarbage(last);
    if (last.metadata.namespace !== undefined) this.finalizeNamespace(last.metadata.namespace);
  }

  private namespaceContent(namespace: string): KubeObject[] {
    return [...this.objects.values()].filter((o) => o.metadata.namespace === namespace);
  }

  /** Releases a terminating namespace once nothing is left in it. */
  private finalizeNamespace(name: string): void {
    const key = { apiVersion: "v1", kind: "Namespace", name };
    const ns = this.objects.get(this.keyOf(key));
    if (!ns || ns.metadata.deletionTimestamp === undefined || this.namespaceContent(name).length > 0) return;
    const finalizers = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
    if (!Array.isArray(finalizers) || !finalizers.includes(NAMESPACE_FINALIZER)) return;
    this.mutate(key, (o) => {
      const spec = o.spec as { finalizers: string[] };
      spec.finalizers = spec.finalizers.filter((f) => f !== NAMESPACE_FINALIZER);
    });
  }

  /**
   * Background garbage collection: a dependent whose owners are all gone is deleted, one that still has
   * a live owner only loses the reference. Owners waiting in foreground deletion are released when
   * their last dependent disappears.
   */
  private collectGarbage(removed: KubeObject): void {
    const uid = removed.metadata.uid;
    for (const dependent of this.dependentsOf(removed)) {
      const refs = dependent.metadata.ownerReferences ?? [];
      const live = refs.filter((r) => r.uid !== uid && this.keysByUid.has(r.uid));
      const key = this.keyFromObject(dependent);
      if (live.length === 0) this.delete(key);
      else this.mutate(key, (o) => setOwnerReferences(o, refs, uid ?? ""));
    }
    for (const ref of removed.metadata.ownerReferences ?? []) {
      const ownerKey = this.keysByUid.get(ref.uid);
      const owner = ownerKey && this.objects.get(ownerKey);
      if (!owner || !owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) continue;
      if (this.dependentsOf(owner).length > 0) continue;
      this.mutate(this.keyFromObject(owner), (o) => {
        o.metadata.finalizers = o.metadata.finalizers?.filter((f) => f !== FOREGROUND_FINALIZER);
      });
    }
  }

  private orphanDependents(owner: KubeObject): void {
    const uid = owner.metadata.uid ?? "";
    for (const dependent of this.dependentsOf(owner)) {
      this.mutate(this.keyFromObject(dependent), (o) =>
        setOwnerReferences(o, o.metadata.ownerReferences ?? [], uid),
      );
    }
    this.mutate(this.keyFromObject(owner), (o) => {
      o.metadata.finalizers = o.metadata.finalizers?.filter((f) => f !== ORPHAN_FINALIZER);
    });
  }

  private record(type: StoreEventType, object: KubeObject): void {
    const event: HistoryEvent = { type, object: copy(object), resourceVersion: this.revision };
    this.history.push(event);
    while (this.history.length > this.historyLimit) {
      this.compacted = this.history.shift()!.resourceVersion;
    }
    this.pending.push({ type, object: copy(object) });
    // Listeners that write to the store from inside a callback must not see events out of order:
    // nested writes queue their events and the outermost call delivers them.
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      let next: StoreEvent | undefined;
      while ((next = this.pending.shift())) {
        for (const listener of [...this.listeners]) {
          try {
            listener({ type: next.type, object: copy(next.object) });
          } catch (error) {
            // A failing listener must neither break the write that triggered it nor starve the others.
            console.error("store listener failed:", error);
          }
        }
      }
    } finally {
      this.dispatching = false;
    }
  }
}

function isNamespace(object: KubeObject): boolean {
  return object.kind === "Namespace" && groupOf(object.apiVersion) === "";
}

/** Whether deletion must wait: metadata finalizers, and for namespaces also `spec.finalizers`. */
function hasFinalizers(object: KubeObject): boolean {
  if ((object.metadata.finalizers?.length ?? 0) > 0) return true;
  const spec = object.spec as { finalizers?: unknown } | undefined;
  return isNamespace(object) && Array.isArray(spec?.finalizers) && spec.finalizers.length > 0;
}

function setOwnerReferences(object: KubeObject, refs: OwnerReference[], withoutUid: string): void {
  const rest = refs.filter((r) => r.uid !== withoutUid);
  if (rest.length > 0) object.metadata.ownerReferences = rest;
  else delete object.metadata.ownerReferences;
}
import { jsonEqual } from "../../primitives/objects";
import { selectorMatches } from "../../primitives/selectors";
