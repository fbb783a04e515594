import { CrdSchemas, PrinterColumn, ScaleSubresource } from "../schema";

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
}

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
  // No workloads are simulated; Pods are served so that `kubectl describe node` and drain-style listings work.
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

/** Looks resources up by group and plural, short name, kind or apiVersion. */
export class ResourceRegistry {
  readonly all: ResourceType[];

  /** `unserved`: plurals left out, as on a cluster older than those resources. */
  constructor(schemas?: CrdSchemas, unserved: readonly string[] = []) {
    this.all = TABLE.filter((row) => !unserved.includes(row.plural)).map((row) => {
      const base: ResourceType = {
        ...row,
        listKind: `${row.kind}List`,
        singular: row.kind.toLowerCase(),
        categories: row.categories ?? [],
        status: row.status ?? false,
        validated: false,
      };
      const crd = schemas?.definition(row.group, row.kind);
      if (!crd) return base;
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
    });
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
