import { CrdDefinition, CrdSchemas, PrinterColumn, ScaleSubresource } from "../schema";

/** One REST resource the simulator serves. */
export interface ResourceType {
  group: string;
  /** Served versions, preferred (storage) first. */
  versions: string[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Whether a `status` subresource exists (then the main resource ignores status writes). */
  status: boolean;
  scale?: ScaleSubresource;
  /** Table columns besides NAME (and NAMESPACE, which kubectl adds); CRD columns when a CRD is loaded. */
  columns?: PrinterColumn[];
  /** True when a CRD schema validates and prunes this kind. */
  validated: boolean;
  /** Whether strategic merge patch applies (built-in kinds only; custom resources answer 415). */
  builtin: boolean;
  /**
   * Served by an aggregated API server that computes its objects and only reads them (get and list), as
   * the package server serves PackageManifests; the objects come from `Backend.computed`.
   */
  readOnly?: boolean;
  /**
   * The kind of a CRD being deleted: served for reads and deletes while its objects go, creates refused
   * (customresource_handler.go, serveResource).
   */
  terminating?: boolean;
  /** A CRD created at run time: its own schema, which validates and prunes its kind. */
  schemas?: CrdSchemas;
}

const age = (description?: string): PrinterColumn => ({
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  ...(description ? { description } : {}),
});
const condition = (name: string, type: string, description?: string, priority?: number): PrinterColumn => ({
  name,
  type: "string",
  jsonPath: `.status.conditions[?(@.type=="${type}")].status`,
  ...(description ? { description } : {}),
  ...(priority ? { priority } : {}),
});

/**
 * The printer columns of the upstream CRDs (`additionalPrinterColumns` of their storage versions:
 * openshift/api for machine-api, MCO and autoscaling kinds, operator-framework/api for OLM's), so that
 * `kubectl get` shows what it shows on OpenShift when no CRD files are loaded. Kinds whose CRDs declare
 * none show NAME and AGE there too. A test checks them against the CRD files.
 */
export const CRD_PRINTER_COLUMNS: Record<string, PrinterColumn[]> = {
  MachineSet: [
    { name: "Desired", type: "integer", jsonPath: ".spec.replicas", description: "Desired Replicas" },
    { name: "Current", type: "integer", jsonPath: ".status.replicas", description: "Current Replicas" },
    { name: "Ready", type: "integer", jsonPath: ".status.readyReplicas", description: "Ready Replicas" },
    {
      name: "Available",
      type: "string",
      jsonPath: ".status.availableReplicas",
      description: "Observed number of available replicas",
    },
    age("Machineset age"),
  ],
  Machine: [
    { name: "Phase", type: "string", jsonPath: ".status.phase", description: "Phase of machine" },
    {
      name: "Type",
      type: "string",
      jsonPath: ".metadata.labels['machine\\.openshift\\.io/instance-type']",
      description: "Type of instance",
    },
    {
      name: "Region",
      type: "string",
      jsonPath: ".metadata.labels['machine\\.openshift\\.io/region']",
      description: "Region associated with machine",
    },
    {
      name: "Zone",
      type: "string",
      jsonPath: ".metadata.labels['machine\\.openshift\\.io/zone']",
      description: "Zone associated with machine",
    },
    age("Machine age"),
    {
      name: "Node",
      type: "string",
      jsonPath: ".status.nodeRef.name",
      description: "Node associated with machine",
      priority: 1,
    },
    {
      name: "ProviderID",
      type: "string",
      jsonPath: ".spec.providerID",
      description: "Provider ID of machine created in cloud provider",
      priority: 1,
    },
    {
      name: "State",
      type: "string",
      jsonPath: ".metadata.annotations['machine\\.openshift\\.io/instance-state']",
      description: "State of instance",
      priority: 1,
    },
  ],
  MachineHealthCheck: [
    {
      name: "MaxUnhealthy",
      type: "string",
      jsonPath: ".spec.maxUnhealthy",
      description: "Maximum number of unhealthy machines allowed",
    },
    {
      name: "ExpectedMachines",
      type: "integer",
      jsonPath: ".status.expectedMachines",
      description: "Number of machines currently monitored",
    },
    {
      name: "CurrentHealthy",
      type: "integer",
      jsonPath: ".status.currentHealthy",
      description: "Current observed healthy machines",
    },
  ],
  MachineAutoscaler: [
    {
      name: "Ref Kind",
      type: "string",
      jsonPath: ".spec.scaleTargetRef.kind",
      description: "Kind of object scaled",
    },
    {
      name: "Ref Name",
      type: "string",
      jsonPath: ".spec.scaleTargetRef.name",
      description: "Name of object scaled",
    },
    { name: "Min", type: "integer", jsonPath: ".spec.minReplicas", description: "Min number of replicas" },
    { name: "Max", type: "integer", jsonPath: ".spec.maxReplicas", description: "Max number of replicas" },
    // "resoruce" is upstream's spelling.
    age("MachineAutoscaler resoruce age"),
  ],
  MachineConfigPool: [
    { name: "Config", type: "string", jsonPath: ".status.configuration.name" },
    condition(
      "Updated",
      "Updated",
      "When all the machines in the pool are updated to the correct machine config.",
    ),
    condition(
      "Updating",
      "Updating",
      "When at least one of machine is not either not updated or is in the process of updating to the desired machine config.",
    ),
    condition(
      "Degraded",
      "Degraded",
      "When progress is blocked on updating one or more nodes or the pool configuration is failing.",
    ),
    {
      name: "MachineCount",
      type: "number",
      jsonPath: ".status.machineCount",
      description: "Total number of machines in the machine config pool",
    },
    {
      name: "ReadyMachineCount",
      type: "number",
      jsonPath: ".status.readyMachineCount",
      description: "Total number of ready machines targeted by the pool",
    },
    {
      name: "UpdatedMachineCount",
      type: "number",
      jsonPath: ".status.updatedMachineCount",
      description:
        "Total number of machines targeted by the pool that have the CurrentMachineConfig as their config",
    },
    {
      name: "DegradedMachineCount",
      type: "number",
      jsonPath: ".status.degradedMachineCount",
      description: "Total number of machines marked degraded (or unreconcilable)",
    },
    age(),
  ],
  MachineConfig: [
    {
      name: "GeneratedByController",
      type: "string",
      jsonPath: ".metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version",
      description:
        "Version of the controller that generated the machineconfig. This will be empty if the machineconfig is not managed by a controller.",
    },
    {
      name: "IgnitionVersion",
      type: "string",
      jsonPath: ".spec.config.ignition.version",
      description: "Version of the Ignition Config defined in the machineconfig.",
    },
    age(),
  ],
  MachineConfigNode: [
    { name: "PoolName", type: "string", jsonPath: ".spec.pool.name" },
    { name: "DesiredConfig", type: "string", jsonPath: ".spec.configVersion.desired" },
    { name: "CurrentConfig", type: "string", jsonPath: ".status.configVersion.current" },
    condition("Updated", "Updated"),
    age(),
    condition("UpdatePrepared", "UpdatePrepared", undefined, 1),
    condition("UpdateExecuted", "UpdateExecuted", undefined, 1),
    condition("UpdatePostActionComplete", "UpdatePostActionComplete", undefined, 1),
    condition("UpdateComplete", "UpdateComplete", undefined, 1),
    condition("Resumed", "Resumed", undefined, 1),
    condition("UpdatedFilesAndOS", "AppliedFilesAndOS", undefined, 1),
    condition("CordonedNode", "Cordoned", undefined, 1),
    condition("DrainedNode", "Drained", undefined, 1),
    condition("RebootedNode", "RebootedNode", undefined, 1),
    condition("UncordonedNode", "Uncordoned", undefined, 1),
  ],
  Subscription: [
    { name: "Package", type: "string", jsonPath: ".spec.name", description: "The package subscribed to" },
    {
      name: "Source",
      type: "string",
      jsonPath: ".spec.source",
      description: "The catalog source for the specified package",
    },
    {
      name: "Channel",
      type: "string",
      jsonPath: ".spec.channel",
      description: "The channel of updates to subscribe to",
    },
  ],
  InstallPlan: [
    {
      name: "CSV",
      type: "string",
      jsonPath: ".spec.clusterServiceVersionNames[0]",
      description: "The first CSV in the list of clusterServiceVersionNames",
    },
    { name: "Approval", type: "string", jsonPath: ".spec.approval", description: "The approval mode" },
    { name: "Approved", type: "boolean", jsonPath: ".spec.approved" },
  ],
  ClusterServiceVersion: [
    { name: "Display", type: "string", jsonPath: ".spec.displayName", description: "The name of the CSV" },
    { name: "Version", type: "string", jsonPath: ".spec.version", description: "The version of the CSV" },
    {
      name: "Release",
      type: "string",
      jsonPath: ".spec.release",
      description: "The release of this version of the CSV",
    },
    {
      name: "Replaces",
      type: "string",
      jsonPath: ".spec.replaces",
      description: "The name of a CSV that this one replaces",
    },
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
  ],
};

type Row = Omit<ResourceType, "validated" | "listKind" | "singular" | "categories" | "status"> & {
  status?: boolean;
  categories?: string[];
};

/**
 * The kinds the simulator serves. Names mirror the upstream definitions; CRD files, when loaded, take
 * precedence for names, versions, columns and subresources of the custom kinds.
 */
const TABLE: Row[] = [
  {
    group: "",
    versions: ["v1"],
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
    shortNames: ["ns"],
    builtin: true,
    status: true,
  },
  {
    group: "",
    versions: ["v1"],
    kind: "Node",
    plural: "nodes",
    namespaced: false,
    shortNames: ["no"],
    builtin: true,
    status: true,
  },
  // The workloads OLM installs (controllers/workloads.ts): Deployments, their ReplicaSets and Pods.
  {
    group: "",
    versions: ["v1"],
    kind: "Pod",
    plural: "pods",
    namespaced: true,
    shortNames: ["po"],
    builtin: true,
    status: true,
  },
  {
    group: "",
    versions: ["v1"],
    kind: "ServiceAccount",
    plural: "serviceaccounts",
    namespaced: true,
    shortNames: ["sa"],
    builtin: true,
  },
  {
    group: "apps",
    versions: ["v1"],
    kind: "Deployment",
    plural: "deployments",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
    builtin: true,
    status: true,
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".status.selector",
    },
  },
  {
    group: "apps",
    versions: ["v1"],
    kind: "ReplicaSet",
    plural: "replicasets",
    namespaced: true,
    shortNames: ["rs"],
    categories: ["all"],
    builtin: true,
    status: true,
  },
  // What a drain honours (controllers/disruption.ts).
  {
    group: "policy",
    versions: ["v1"],
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    namespaced: true,
    shortNames: ["pdb"],
    builtin: true,
    status: true,
  },
  {
    group: "rbac.authorization.k8s.io",
    versions: ["v1"],
    kind: "ClusterRoleBinding",
    plural: "clusterrolebindings",
    namespaced: false,
    shortNames: [],
    builtin: true,
  },
  {
    group: "",
    versions: ["v1"],
    kind: "Secret",
    plural: "secrets",
    namespaced: true,
    shortNames: [],
    builtin: true,
  },
  {
    group: "",
    versions: ["v1"],
    kind: "ConfigMap",
    plural: "configmaps",
    namespaced: true,
    shortNames: ["cm"],
    builtin: true,
  },
  {
    group: "",
    versions: ["v1"],
    kind: "Event",
    plural: "events",
    namespaced: true,
    shortNames: ["ev"],
    builtin: true,
  },
  {
    group: "node.k8s.io",
    versions: ["v1"],
    kind: "RuntimeClass",
    plural: "runtimeclasses",
    namespaced: false,
    shortNames: [],
    builtin: true,
  },
  // The definitions of the custom kinds, served from the CRD files as a cluster serves them.
  {
    group: "apiextensions.k8s.io",
    versions: ["v1"],
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    namespaced: false,
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    builtin: true,
    status: true,
  },
  {
    group: "machine.openshift.io",
    versions: ["v1beta1"],
    kind: "MachineSet",
    plural: "machinesets",
    namespaced: true,
    shortNames: [],
    builtin: false,
    status: true,
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".status.labelSelector",
    },
  },
  {
    group: "machine.openshift.io",
    versions: ["v1beta1"],
    kind: "Machine",
    plural: "machines",
    namespaced: true,
    shortNames: [],
    builtin: false,
    status: true,
  },
  {
    group: "machine.openshift.io",
    versions: ["v1beta1"],
    kind: "MachineHealthCheck",
    plural: "machinehealthchecks",
    namespaced: true,
    shortNames: ["mhc", "mhcs"],
    builtin: false,
    status: true,
  },
  {
    group: "autoscaling.openshift.io",
    versions: ["v1beta1"],
    kind: "MachineAutoscaler",
    plural: "machineautoscalers",
    namespaced: true,
    shortNames: ["ma"],
    builtin: false,
    status: true,
  },
  {
    group: "autoscaling.openshift.io",
    versions: ["v1"],
    kind: "ClusterAutoscaler",
    plural: "clusterautoscalers",
    namespaced: false,
    shortNames: ["ca"],
    builtin: false,
    status: true,
  },
  {
    group: "machineconfiguration.openshift.io",
    versions: ["v1"],
    kind: "MachineConfigPool",
    plural: "machineconfigpools",
    namespaced: false,
    shortNames: ["mcp"],
    builtin: false,
    status: true,
  },
  {
    group: "machineconfiguration.openshift.io",
    versions: ["v1"],
    kind: "MachineConfig",
    plural: "machineconfigs",
    namespaced: false,
    shortNames: ["mc"],
    builtin: false,
    status: false,
  },
  {
    group: "machineconfiguration.openshift.io",
    versions: ["v1"],
    kind: "KubeletConfig",
    plural: "kubeletconfigs",
    namespaced: false,
    shortNames: [],
    builtin: false,
    status: true,
  },
  {
    group: "machineconfiguration.openshift.io",
    versions: ["v1"],
    kind: "ContainerRuntimeConfig",
    plural: "containerruntimeconfigs",
    namespaced: false,
    shortNames: ["ctrcfg"],
    builtin: false,
    status: true,
  },
  {
    group: "machineconfiguration.openshift.io",
    versions: ["v1"],
    kind: "MachineConfigNode",
    plural: "machineconfignodes",
    namespaced: false,
    shortNames: [],
    builtin: false,
    status: true,
  },
  {
    group: "operator.openshift.io",
    versions: ["v1"],
    kind: "MachineConfiguration",
    plural: "machineconfigurations",
    namespaced: false,
    shortNames: [],
    builtin: false,
    status: true,
  },
  {
    group: "operators.coreos.com",
    versions: ["v1alpha1"],
    kind: "Subscription",
    plural: "subscriptions",
    namespaced: true,
    shortNames: ["sub", "subs"],
    categories: ["olm"],
    builtin: false,
    status: true,
  },
  {
    group: "operators.coreos.com",
    versions: ["v1alpha1"],
    kind: "InstallPlan",
    plural: "installplans",
    namespaced: true,
    shortNames: ["ip"],
    categories: ["olm"],
    builtin: false,
    status: true,
  },
  {
    group: "operators.coreos.com",
    versions: ["v1alpha1"],
    kind: "ClusterServiceVersion",
    plural: "clusterserviceversions",
    namespaced: true,
    shortNames: ["csv", "csvs"],
    categories: ["olm"],
    builtin: false,
    status: true,
  },
  {
    group: "operators.coreos.com",
    versions: ["v1alpha1"],
    kind: "CatalogSource",
    plural: "catalogsources",
    namespaced: true,
    shortNames: ["catsrc"],
    categories: ["olm"],
    builtin: false,
    status: true,
    // No CRD file ships for CatalogSource; these are OLM's columns.
    columns: [
      { name: "Display", type: "string", jsonPath: ".spec.displayName" },
      { name: "Type", type: "string", jsonPath: ".spec.sourceType" },
      { name: "Publisher", type: "string", jsonPath: ".spec.publisher" },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  },
  {
    group: "operators.coreos.com",
    versions: ["v1", "v1alpha2"],
    kind: "OperatorGroup",
    plural: "operatorgroups",
    namespaced: true,
    shortNames: ["og"],
    categories: ["olm"],
    builtin: false,
    status: true,
  },
  // The package server's aggregated API (operator-lifecycle-manager pkg/package-server/storage,
  // PackageManifestStorage): get and list only, computed from the catalogs; its table has NAME CATALOG AGE.
  {
    group: "packages.operators.coreos.com",
    versions: ["v1"],
    kind: "PackageManifest",
    plural: "packagemanifests",
    namespaced: true,
    shortNames: [],
    builtin: true,
    readOnly: true,
  },
  {
    group: "config.openshift.io",
    versions: ["v1"],
    kind: "Infrastructure",
    plural: "infrastructures",
    namespaced: false,
    shortNames: [],
    builtin: false,
    status: true,
  },
  {
    group: "config.openshift.io",
    versions: ["v1"],
    kind: "ClusterVersion",
    plural: "clusterversions",
    namespaced: false,
    shortNames: [],
    builtin: false,
    status: true,
    // No CRD file ships for ClusterVersion; these are the cluster-version operator's columns.
    columns: [
      { name: "Version", type: "string", jsonPath: '.status.history[?(@.state=="Completed")].version' },
      { name: "Available", type: "string", jsonPath: '.status.conditions[?(@.type=="Available")].status' },
      {
        name: "Progressing",
        type: "string",
        jsonPath: '.status.conditions[?(@.type=="Progressing")].status',
      },
      {
        name: "Since",
        type: "date",
        jsonPath: '.status.conditions[?(@.type=="Progressing")].lastTransitionTime',
      },
      { name: "Status", type: "string", jsonPath: '.status.conditions[?(@.type=="Progressing")].message' },
    ],
  },
  {
    group: "operator.openshift.io",
    versions: ["v1"],
    kind: "IngressController",
    plural: "ingresscontrollers",
    namespaced: true,
    shortNames: [],
    builtin: false,
    status: true,
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.availableReplicas",
      labelSelectorPath: ".status.selector",
    },
  },
  {
    group: "imageregistry.operator.openshift.io",
    versions: ["v1"],
    kind: "Config",
    plural: "configs",
    namespaced: false,
    shortNames: [],
    builtin: false,
    status: true,
  },
];

/** What a CRD makes of a kind's REST resource: its names, scope, served versions (storage first), subresources and columns. */
function servedAs(base: ResourceType, crd: CrdDefinition): ResourceType {
  const served = crd.versions.filter((v) => v.served);
  const storage = served.find((v) => v.storage) ?? served[0];
  const ordered = [storage, ...served.filter((v) => v !== storage)];
  return {
    ...base,
    versions: ordered.map((v) => v.name),
    listKind: crd.listKind,
    plural: crd.plural,
    singular: crd.singular,
    shortNames: crd.shortNames,
    categories: crd.categories,
    namespaced: crd.scope === "Namespaced",
    status: storage.subresources.status === true,
    scale: storage.subresources.scale,
    columns: storage.additionalPrinterColumns,
    validated: storage.schema !== undefined,
  };
}

/**
 * Looks resources up by group and plural, short name, kind or apiVersion: the simulator's own kinds,
 * then those of CRDs created at run time (`define`).
 */
export class ResourceRegistry {
  private readonly builtIn: ResourceType[];
  private served: ResourceType[];

  /** `unserved`: plurals left out, as on a cluster older than those resources. */
  constructor(schemas?: CrdSchemas, unserved: readonly string[] = []) {
    this.builtIn = TABLE.filter((row) => !unserved.includes(row.plural)).map((row) => {
      const base: ResourceType = {
        ...row,
        listKind: `${row.kind}List`,
        singular: row.kind.toLowerCase(),
        categories: row.categories ?? [],
        status: row.status ?? false,
        columns: row.columns ?? CRD_PRINTER_COLUMNS[row.kind],
        validated: false,
      };
      const crd = schemas?.definition(row.group, row.kind);
      return crd ? servedAs(base, crd) : base;
    });
    this.served = this.builtIn;
  }

  /** Every resource served: the simulator's own, then the kinds of the CRDs `define` was given. */
  get all(): readonly ResourceType[] {
    return this.served;
  }

  /** Whether the simulator serves the kind itself, whatever becomes of a CRD for it. */
  isBuiltIn(group: string, kind: string): boolean {
    return this.builtIn.some((r) => r.group === group && r.kind === kind);
  }

  /**
   * Serves the kinds of these CRDs (established ones, the simulator's own kinds left out) besides the
   * simulator's own; `terminating` names the CRDs being deleted, whose kinds refuse creates; `own` holds
   * the schemas of the simulator's own kinds whose CRDs were changed, by `<group>/<kind>`.
   */
  define(
    crds: readonly CrdDefinition[],
    terminating: ReadonlySet<string>,
    own: ReadonlyMap<string, CrdSchemas> = new Map(),
  ): void {
    const added = crds
      .filter((crd) => !this.isBuiltIn(crd.group, crd.kind) && crd.versions.some((v) => v.served))
      .map((crd) =>
        servedAs(
          {
            group: crd.group,
            versions: [],
            kind: crd.kind,
            listKind: crd.listKind,
            plural: crd.plural,
            singular: crd.singular,
            namespaced: crd.scope === "Namespaced",
            shortNames: [],
            categories: [],
            status: false,
            validated: false,
            builtin: false,
            schemas: new CrdSchemas([crd]),
            ...(terminating.has(crd.name) ? { terminating: true } : {}),
          },
          crd,
        ),
      );
    const builtIn = this.builtIn.map((r) => {
      const schemas = own.get(`${r.group}/${r.kind}`);
      return schemas ? { ...r, validated: true, schemas } : r;
    });
    this.served = [...builtIn, ...added];
  }

  byPlural(group: string, version: string, plural: string): ResourceType | undefined {
    return this.all.find((r) => r.group === group && r.plural === plural && r.versions.includes(version));
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return this.all.find((r) => r.group === group && r.kind === kind && r.versions.includes(version));
  }

  groups(): string[] {
    return [...new Set(this.all.map((r) => r.group))].filter((g) => g !== "");
  }
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
