/**
 * Watch streams: initial ADDED events (or a replay from a resourceVersion, 410 Expired when it is too
 * old), then live events filtered by label and field selectors, with bookmarks when allowed.
 */
import { KubeObject } from "../store";
import { ResourceVersionTooOldError } from "../store/memory-store";
import { partialMetadata, wantsMetadata, wantsTable } from "./negotiation";
import { parseFieldSelector, parseLabelSelector } from "./selectors";
import { errors } from "./status";
import { toTable } from "./table";
import { apiVersion as apiVersionOf, Backend, Target } from "./target";
import { Request } from "./transport";

const MAX_WATCH_SECONDS = 1800;

interface Watcher {
  close(): void;
  /** Cuts the connection under the stream, as a reset from a load balancer in between. */
  reset(): void;
}

/** The faults a watch consults as it opens (see `ServerFaults`). */
export interface WatchFaults {
  /** Whether this watch, resuming from a resourceVersion, gets 410 Expired. */
  takeWatchExpiry(): boolean;
  /** Whether this watch is accepted and then never hears anything (a half-open connection). */
  takeSilentWatch(): boolean;
}

/** The open watch streams of a server. */
export class Watches {
  private readonly open = new Set<Watcher>();

  constructor(
    private readonly backend: Backend,
    private readonly bookmarkIntervalMs: number,
    private readonly faults: WatchFaults,
  ) {}

  /** Ends every open watch stream; returns how many were open. */
  dropAll(): number {
    const open = [...this.open];
    for (const w of open) w.close();
    return open.length;
  }

  /** Resets the connection of every open watch stream; returns how many were open. */
  resetAll(): number {
    const open = [...this.open];
    for (const w of open) w.reset();
    return open.length;
  }

  serve(request: Request, target: Target): void {
    const { store } = this.backend;
    const { query, res } = request;
    const labels = parseLabelSelector(query.get("labelSelector") ?? "");
    const fields = parseFieldSelector(query.get("fieldSelector") ?? "", target.resource.kind);
    const rvParam = query.get("resourceVersion") ?? "";
    const sendInitial = query.get("sendInitialEvents") === "true";
    const bookmarks = query.get("allowWatchBookmarks") === "true" || query.get("allowWatchBookmarks") === "1";
    const timeoutParam = query.get("timeoutSeconds");
    const timeoutSeconds = timeoutParam === null ? MAX_WATCH_SECONDS : Number(timeoutParam);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)
      throw errors.badRequest(`invalid timeoutSeconds "${timeoutParam}"`);
    const resume = rvParam !== "" && rvParam !== "0" && !sendInitial;
    const fromVersion = Number(rvParam);
    if (resume && (!Number.isInteger(fromVersion) || fromVersion < 0)) {
      throw errors.badRequest(`invalid resourceVersion "${rvParam}"`);
    }
    const apiVersion = apiVersionOf(target);
    const { group, kind } = target.resource;
    const table = wantsTable(request);
    const metadataOnly = wantsMetadata(request);
    let columnsSent = false;

    res.writeHead(200, {
      "Content-Type": "application/json",
      "Cache-Control": "no-cache, private",
      "Transfer-Encoding": "chunked",
      ...request.headers,
    });
    res.flushHeaders();
    if (this.faults.takeSilentWatch()) {
      this.track(request, () => undefined);
      return;
    }

    const write = (type: string, object: unknown): void => {
      if (res.destroyed || res.writableEnded) return;
      let payload = object;
      if (table && type !== "ERROR" && type !== "BOOKMARK") {
        const t = toTable(target.resource, [object as KubeObject], this.backend.now());
        if (columnsSent) t.columnDefinitions = [];
        columnsSent = true;
        payload = t;
      } else if (metadataOnly && type !== "ERROR") {
        payload = partialMetadata(object as KubeObject);
      }
      res.write(JSON.stringify({ type, object: payload }) + "\n");
    };
    const expire = (message: string): void => {
      write("ERROR", errors.gone(message).toStatus());
      res.end();
    };

    const sameKind = (o: KubeObject) =>
      o.kind === kind && (o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : "") === group;
    const inScope = (o: KubeObject) =>
      target.namespace === undefined || o.metadata.namespace === target.namespace;
    const matches = (o: KubeObject) => labels(o.metadata.labels) && fields(o);
    const visible = new Set<string>();
    const idOf = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    const deliver = (type: string, object: KubeObject): void => {
      if (!sameKind(object) || !inScope(object)) return;
      const out = () => ({ ...object, apiVersion });
      const id = idOf(object);
      const was = visible.has(id);
      const now = type !== "DELETED" && matches(object);
      if (type === "DELETED") {
        if (was || matches(object)) write("DELETED", out());
        visible.delete(id);
      } else if (now) {
        visible.add(id);
        write(was ? "MODIFIED" : "ADDED", out());
      } else if (was) {
        visible.delete(id);
        write("DELETED", out());
      }
    };

    if (resume) {
      if (this.faults.takeWatchExpiry())
        return expire(`too old resource version: ${fromVersion} (${store.resourceVersion})`);
      let replay;
      try {
        replay = store.eventsSince(fromVersion);
      } catch (error) {
        if (error instanceof ResourceVersionTooOldError) return expire(error.message);
        throw error;
      }
      // Objects that matched at the resume point are the ones the client knows about.
      const changed = new Set(replay.map((e) => idOf(e.object)));
      for (const o of store.list(apiVersion, kind, { namespace: target.namespace, where: matches })) {
        if (!changed.has(idOf(o))) visible.add(idOf(o));
      }
      for (const e of replay) {
        if (e.type !== "ADDED" && matches(e.object)) visible.add(idOf(e.object));
        deliver(e.type, e.object);
      }
    } else {
      for (const o of store.list(apiVersion, kind, { namespace: target.namespace, where: matches }))
        deliver("ADDED", o);
      if (sendInitial) {
        write("BOOKMARK", {
          kind,
          apiVersion,
          metadata: {
            resourceVersion: store.resourceVersion,
            annotations: { "k8s.io/initial-events-end": "true" },
          },
        });
      }
    }

    const unsubscribe = store.subscribe((event) => deliver(event.type, event.object));
    const timers: NodeJS.Timeout[] = [];
    if (bookmarks) {
      const interval = setInterval(
        () => write("BOOKMARK", { kind, apiVersion, metadata: { resourceVersion: store.resourceVersion } }),
        this.bookmarkIntervalMs,
      );
      timers.push(interval);
    }
    const watcher = this.track(request, () => {
      unsubscribe();
      for (const t of timers) clearTimeout(t);
    });
    timers.push(setTimeout(() => watcher.close(), Math.min(timeoutSeconds, MAX_WATCH_SECONDS) * 1000));
  }

  /**
   * Keeps an open stream until it is closed (by the client, the timeout or a fault). A silent watch
   * (`stop` does nothing) has neither events, bookmarks nor a timeout: behind a half-open connection,
   * whatever the server sends or closes never reaches the client.
   */
  private track(request: Request, stop: () => void): Watcher {
    const { req, res } = request;
    const watcher: Watcher = {
      close: () => {
        stop();
        this.open.delete(watcher);
        if (!res.writableEnded) res.end();
      },
      reset: () => {
        stop();
        this.open.delete(watcher);
        req.socket.destroy();
      },
    };
    this.open.add(watcher);
    res.on("close", () => watcher.close());
    return watcher;
  }
}
