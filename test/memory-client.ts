/**
 * An ApiClient over objects held in memory, for tests of waits that need neither HTTP nor a simulator
 * (a TLS API server costs seconds to start). Lists answer at once; watches stay open until the wait
 * ends and see every `put` and `remove` of their resource after the resourceVersion they start from. Lists can be held back, to see what a
 * wait does before every source has answered.
 */
import type { ApiClient, WatchEvent, WatchHandlers } from "../provider/waiting/api";
import { KubeObject, objectKey, ResourceKind } from "../provider/waiting/kinds";

interface OpenWatch {
  plural: string;
  namespace?: string;
  name?: string;
  handlers: WatchHandlers;
}

export interface MemoryClient extends ApiClient {
  /** Creates or replaces an object, telling the open watches of its resource. */
  put(resource: ResourceKind, object: KubeObject): void;
  remove(resource: ResourceKind, object: KubeObject): void;
  /** Lists of this resource wait until `release` is called. */
  holdLists(resource: ResourceKind): { release(): void };
  /** Merge patches received, as `plural/name` and the patch. */
  readonly patches: Array<[string, unknown]>;
}

function selected(object: KubeObject, namespace?: string, name?: string): boolean {
  return (
    (namespace === undefined || object.metadata.namespace === namespace) &&
    (name === undefined || object.metadata.name === name)
  );
}

export function memoryClient(): MemoryClient {
  const objects = new Map<string, Map<string, KubeObject>>();
  const watches = new Set<OpenWatch>();
  const log: Array<{ plural: string; version: number; event: WatchEvent }> = [];
  const held = new Map<string, Promise<void>>();
  const patches: Array<[string, unknown]> = [];
  let requests = 0;
  let version = 0;
  const of = (resource: ResourceKind) => {
    if (!objects.has(resource.plural)) objects.set(resource.plural, new Map());
    return objects.get(resource.plural)!;
  };
  const tell = (resource: ResourceKind, type: WatchEvent["type"], object: KubeObject) => {
    log.push({ plural: resource.plural, version, event: { type, object } });
    for (const w of watches) {
      if (w.plural === resource.plural && selected(object, w.namespace, w.name))
        w.handlers.onEvent({ type, object });
    }
  };
  const nameOf = (fieldSelector?: string) => fieldSelector?.match(/^metadata\.name=(.+)$/)?.[1];

  return {
    patches,
    get requests() {
      return requests;
    },
    put(resource, object) {
      const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(++version) } };
      const existed = of(resource).has(objectKey(object));
      of(resource).set(objectKey(object), stored);
      tell(resource, existed ? "MODIFIED" : "ADDED", stored);
    },
    remove(resource, object) {
      if (!of(resource).delete(objectKey(object))) return;
      version++;
      tell(resource, "DELETED", object);
    },
    holdLists(resource) {
      let release = () => {};
      held.set(resource.plural, new Promise<void>((resolve) => (release = resolve)));
      return {
        release: () => {
          held.delete(resource.plural);
          release();
        },
      };
    },
    async list(resource, selectors) {
      requests++;
      await held.get(resource.plural);
      const name = nameOf(selectors.fieldSelector);
      const items = [...of(resource).values()].filter((o) => selected(o, selectors.namespace, name));
      return { items, resourceVersion: String(version) };
    },
    async get(resource, name, namespace) {
      requests++;
      return [...of(resource).values()].find((o) => selected(o, namespace, name));
    },
    async mergePatch(resource, name, namespace, patch) {
      requests++;
      patches.push([`${resource.plural}/${name}`, patch]);
      return { metadata: { name, namespace } };
    },
    async delete(resource, name, namespace) {
      requests++;
      const object = [...of(resource).values()].find((o) => selected(o, namespace, name));
      if (object) this.remove(resource, object);
      return object !== undefined;
    },
    async watch(resource, selectors, handlers, signal) {
      requests++;
      const open: OpenWatch = {
        plural: resource.plural,
        namespace: selectors.namespace,
        name: nameOf(selectors.fieldSelector),
        handlers,
      };
      watches.add(open);
      handlers.onOpen?.();
      for (const { plural, version: at, event } of log) {
        if (
          plural === open.plural &&
          at > Number(selectors.resourceVersion) &&
          selected(event.object, open.namespace, open.name)
        )
          handlers.onEvent(event);
      }
      await new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        signal?.addEventListener("abort", () => resolve());
      });
      watches.delete(open);
    },
  };
}
