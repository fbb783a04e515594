import { PrinterColumn } from "../schema";
import { KubeObject } from "../store";
import { evaluateJsonPath } from "./jsonpath";
import { ResourceType } from "./resources";

/** `meta.k8s.io/v1` TableColumnDefinition. */
export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: { resourceVersion?: string };
  columnDefinitions: ColumnDefinition[];
  rows: Array<{ cells: unknown[]; object: unknown }>;
}

/** Age as kubectl prints it (`k8s.io/apimachinery/pkg/util/duration.HumanDuration`). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24);
    const d = days % 365;
    return d === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== "string") return "<unknown>";
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? "<unknown>" : humanDuration(now.getTime() - t);
}

/** ROLES of `kubectl get nodes`: `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels, sorted. */
export function nodeRoles(labels: Record<string, string> = {}): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith("node-role.kubernetes.io/")) {
      const role = key.slice("node-role.kubernetes.io/".length);
      if (role) roles.add(role);
    } else if (key === "kubernetes.io/role" && value) {
      roles.add(value);
    }
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

interface Column {
  definition: ColumnDefinition;
  cell: (object: KubeObject, now: Date) => unknown;
}

function column(
  name: string,
  cell: Column["cell"],
  options: { type?: string; format?: string; priority?: number; description?: string } = {},
): Column {
  return {
    definition: {
      name,
      type: options.type ?? "string",
      format: options.format ?? "",
      description: options.description ?? "",
      priority: options.priority ?? 0,
    },
    cell,
  };
}

const nameColumn = column("Name", (o) => o.metadata.name, {
  format: "name",
  description: "Name must be unique within a namespace.",
});
const ageColumn = column("Age", (o, now) => age(o.metadata.creationTimestamp, now), {
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
});

type Obj = Record<string, unknown>;
const field = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (acc, k) => (acc !== null && typeof acc === "object" ? (acc as Obj)[k] : undefined),
    o,
  );

function nodeStatus(node: KubeObject): string {
  const raw = field(node, "status", "conditions");
  const conditions = Array.isArray(raw) ? (raw as Array<{ type: string; status: string }>) : [];
  const ready = conditions.find((c) => c.type === "Ready");
  const parts = [ready?.status === "True" ? "Ready" : ready ? "NotReady" : "Unknown"];
  if (field(node, "spec", "unschedulable") === true) parts.push("SchedulingDisabled");
  return parts.join(",");
}

function address(node: KubeObject, type: string): string {
  const raw = field(node, "status", "addresses");
  const addresses = Array.isArray(raw) ? (raw as Array<{ type: string; address: string }>) : [];
  return addresses.find((a) => a.type === type)?.address ?? "<none>";
}

/** Columns of the built-in kinds, as the Kubernetes printers define them. */
const BUILTIN_COLUMNS: Record<string, Column[]> = {
  Node: [
    nameColumn,
    column("Status", nodeStatus, { description: "The status of the node" }),
    column("Roles", (o) => nodeRoles(o.metadata.labels), { description: "The roles of the node" }),
    ageColumn,
    column("Version", (o) => field(o, "status", "nodeInfo", "kubeletVersion") ?? "", {
      description: "Kubelet Version reported by the node.",
    }),
    column("Internal-IP", (o) => address(o, "InternalIP"), { priority: 1 }),
    column("External-IP", (o) => address(o, "ExternalIP"), { priority: 1 }),
    column("OS-Image", (o) => field(o, "status", "nodeInfo", "osImage") ?? "<unknown>", { priority: 1 }),
    column("Kernel-Version", (o) => field(o, "status", "nodeInfo", "kernelVersion") ?? "<unknown>", {
      priority: 1,
    }),
    column(
      "Container-Runtime",
      (o) => field(o, "status", "nodeInfo", "containerRuntimeVersion") ?? "<unknown>",
      {
        priority: 1,
      },
    ),
  ],
  Namespace: [
    nameColumn,
    column("Status", (o) => field(o, "status", "phase") ?? "Active", {
      description: "The status of the namespace",
    }),
    ageColumn,
  ],
  Secret: [
    nameColumn,
    column("Type", (o) => o.type ?? "Opaque"),
    column("Data", (o) => Object.keys((o.data as Obj) ?? {}).length, { type: "string" }),
    ageColumn,
  ],
  ConfigMap: [
    nameColumn,
    column(
      "Data",
      (o) => Object.keys((o.data as Obj) ?? {}).length + Object.keys((o.binaryData as Obj) ?? {}).length,
      {
        type: "string",
      },
    ),
    ageColumn,
  ],
  Event: [
    column("Last Seen", (o, now) => age(o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp, now)),
    column("Type", (o) => o.type ?? ""),
    column("Reason", (o) => o.reason ?? ""),
    column("Object", (o) => {
      const involved = (o.involvedObject as Obj) ?? {};
      return `${String(involved.kind ?? "").toLowerCase()}/${String(involved.name ?? "")}`;
    }),
    column("Message", (o) => o.message ?? ""),
  ],
  RuntimeClass: [nameColumn, column("Handler", (o) => o.handler ?? ""), ageColumn],
  // operator-lifecycle-manager pkg/package-server/storage/printer.go, addTableHandlers.
  PackageManifest: [
    nameColumn,
    column("Catalog", (o) => field(o, "status", "catalogSourceDisplayName") ?? "", {
      description: "The source catalog for this package",
    }),
    ageColumn,
  ],
  CustomResourceDefinition: [
    nameColumn,
    column("Created At", (o) => o.metadata.creationTimestamp ?? null, { type: "date" }),
  ],
};

/** A CRD printer column: JSONPath values, dates as ages, several matches comma-joined. */
function printerColumn(def: PrinterColumn): Column {
  return column(
    def.name,
    (object, now) => {
      let values: unknown[];
      try {
        values = evaluateJsonPath(object, def.jsonPath);
      } catch {
        return null;
      }
      if (values.length === 0) return null;
      if (def.type === "date") return age(values[0], now);
      if (values.length === 1) return values[0];
      return values.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(",");
    },
    { type: def.type, format: def.format, priority: def.priority, description: def.description },
  );
}

function columnsFor(resource: ResourceType): Column[] {
  const builtin = BUILTIN_COLUMNS[resource.kind];
  if (resource.builtin && builtin) return builtin;
  const custom = resource.columns ?? [];
  if (custom.length === 0) return [nameColumn, ageColumn];
  return [nameColumn, ...custom.map(printerColumn)];
}

/** Renders objects as a `meta.k8s.io/v1` Table, each row carrying PartialObjectMetadata. */
export function toTable(
  resource: ResourceType,
  objects: KubeObject[],
  now: Date,
  resourceVersion?: string,
): Table {
  const columns = columnsFor(resource);
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: resourceVersion === undefined ? {} : { resourceVersion },
    columnDefinitions: columns.map((c) => c.definition),
    rows: objects.map((object) => ({
      cells: columns.map((c) => {
        // Objects written without a schema may hold anything where a column expects a shape.
        try {
          return c.cell(object, now) ?? null;
        } catch {
          return null;
        }
      }),
      object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata },
    })),
  };
}
