/**
 * OLM v1 as OpenShift 4.18 serves it (operator-framework/operator-controller v1.2): the CRDs of
 * ClusterExtension and ClusterCatalog (`olm.operatorframework.io/v1`), written from the Go types of
 * api/v1 (clusterextension_types.go, clustercatalog_types.go: required fields, enums, bounds, the
 * printer columns), so that the API server validates them as their generated CRDs do, and the
 * `openshift-redhat-operators` ClusterCatalog catalogd has unpacked, serving the redhat-operators index.
 */
import { Json } from "../../primitives/objects";
import { establishCrd } from "../apiserver/apiextensions";
import { KubeObject, Store } from "../store/types";

const GROUP = "olm.operatorframework.io";
const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

const str = (description: string, extra: Json = {}): Json => ({ type: "string", description, ...extra });
const conditions: Json = {
  type: "array",
  description: "The state of the object, as metav1.Condition.",
  items: {
    type: "object",
    required: ["lastTransitionTime", "message", "reason", "status", "type"],
    properties: {
      type: str("Type of the condition.", { maxLength: 316 }),
      status: str("Status of the condition.", { enum: ["True", "False", "Unknown"] }),
      reason: str("Reason in CamelCase.", { maxLength: 1024, minLength: 1 }),
      message: str("Human-readable message.", { maxLength: 32768 }),
      observedGeneration: { type: "integer", format: "int64", minimum: 0 },
      lastTransitionTime: str("When the status last changed.", { format: "date-time" }),
    },
  },
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
};

function crd(kind: string, plural: string, spec: Json, status: Json, columns: Json[]): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${GROUP}`,
      annotations: { "controller-gen.kubebuilder.io/version": "v0.16.1" },
    },
    spec: {
      group: GROUP,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: "Cluster",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columns,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec,
                status,
              },
              ...(kind === "ClusterCatalog" ? { required: ["metadata", "spec"] } : {}),
            },
          },
        },
      ],
    },
  };
}

export const CLUSTER_EXTENSION_CRD = crd(
  "ClusterExtension",
  "clusterextensions",
  {
    type: "object",
    required: ["namespace", "serviceAccount", "source"],
    properties: {
      namespace: str("Namespace the extension's namespaced objects are applied to; must exist.", {
        maxLength: 63,
        pattern: DNS_LABEL,
      }),
      serviceAccount: {
        type: "object",
        required: ["name"],
        properties: {
          name: str("The ServiceAccount in spec.namespace the install runs as.", {
            maxLength: 253,
            pattern: DNS_SUBDOMAIN,
          }),
        },
      },
      source: {
        type: "object",
        required: ["sourceType"],
        properties: {
          sourceType: str("Where the content comes from.", { enum: ["Catalog"] }),
          catalog: {
            type: "object",
            required: ["packageName"],
            properties: {
              packageName: str("The package to install.", { maxLength: 253, pattern: DNS_SUBDOMAIN }),
              version: str("A version or range (Masterminds/semver).", { maxLength: 64 }),
              channels: {
                type: "array",
                maxItems: 256,
                items: { type: "string", maxLength: 253, pattern: DNS_SUBDOMAIN },
              },
              selector: {
                type: "object",
                "x-kubernetes-map-type": "atomic",
                "x-kubernetes-preserve-unknown-fields": true,
              },
              upgradeConstraintPolicy: str("Whether upgrades follow the catalog's edges.", {
                enum: ["CatalogProvided", "SelfCertified"],
                default: "CatalogProvided",
              }),
            },
          },
        },
      },
      install: {
        type: "object",
        properties: {
          preflight: {
            type: "object",
            required: ["crdUpgradeSafety"],
            properties: {
              crdUpgradeSafety: {
                type: "object",
                required: ["enforcement"],
                properties: { enforcement: str("CRD upgrade safety checks.", { enum: ["None", "Strict"] }) },
              },
            },
          },
        },
      },
    },
  },
  {
    type: "object",
    properties: {
      conditions,
      install: {
        type: "object",
        required: ["bundle"],
        properties: {
          bundle: {
            type: "object",
            required: ["name", "version"],
            properties: { name: str("Bundle name."), version: str("Bundle version.") },
          },
        },
      },
    },
  },
  [
    { name: "Installed Bundle", type: "string", jsonPath: ".status.install.bundle.name" },
    { name: "Version", type: "string", jsonPath: ".status.install.bundle.version" },
    { name: "Installed", type: "string", jsonPath: ".status.conditions[?(@.type=='Installed')].status" },
    { name: "Progressing", type: "string", jsonPath: ".status.conditions[?(@.type=='Progressing')].status" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ],
);

export const CLUSTER_CATALOG_CRD = crd(
  "ClusterCatalog",
  "clustercatalogs",
  {
    type: "object",
    required: ["source"],
    properties: {
      source: {
        type: "object",
        required: ["type"],
        properties: {
          type: str("The source's type.", { enum: ["Image"] }),
          image: {
            type: "object",
            required: ["ref"],
            properties: {
              ref: str("The catalog image reference."),
              pollIntervalMinutes: { type: "integer", minimum: 1 },
            },
          },
        },
      },
      priority: { type: "integer", format: "int32", default: 0, minimum: -2147483648, maximum: 2147483647 },
      availabilityMode: str("Whether the catalog is served.", {
        enum: ["Unavailable", "Available"],
        default: "Available",
      }),
    },
  },
  {
    type: "object",
    properties: {
      conditions,
      resolvedSource: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      urls: {
        type: "object",
        required: ["base"],
        properties: { base: str("Where catalogd serves the content.") },
      },
      lastUnpacked: str("When the content was last unpacked.", { format: "date-time" }),
    },
  },
  [
    { name: "LastUnpacked", type: "date", jsonPath: ".status.lastUnpacked" },
    { name: "Serving", type: "string", jsonPath: `.status.conditions[?(@.type=="Serving")].status` },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ],
);

export const V1_CATALOG = "openshift-redhat-operators";
/** The CatalogSource of OLM v0 whose index the v1 catalog unpacks (the same redhat-operator-index). */
export const V1_CATALOG_CONTENT = "redhat-operators";

/** The OLM v1 CRDs, established, and the unpacked ClusterCatalog, as a 4.18 cluster has them. */
export function seedOlmV1(store: Store, now: Date): void {
  for (const definition of [CLUSTER_EXTENSION_CRD, CLUSTER_CATALOG_CRD]) {
    const created = store.create(structuredClone(definition));
    store.mutate(
      { apiVersion: created.apiVersion, kind: created.kind, name: created.metadata.name },
      (o) => establishCrd(o, now),
      { subresource: "status" },
    );
  }
  const ts = now.toISOString().replace(/\.\d+Z$/, "Z");
  const image = "registry.redhat.io/redhat/redhat-operator-index:v4.18";
  const catalog = store.create({
    apiVersion: `${GROUP}/v1`,
    kind: "ClusterCatalog",
    metadata: { name: V1_CATALOG, labels: { "olm.operatorframework.io/metadata.name": V1_CATALOG } },
    spec: {
      source: { type: "Image", image: { ref: image, pollIntervalMinutes: 10 } },
      priority: -100,
      availabilityMode: "Available",
    },
  });
  store.mutate(
    { apiVersion: catalog.apiVersion, kind: catalog.kind, name: V1_CATALOG },
    (o) => {
      o.status = {
        conditions: [
          {
            type: "Progressing",
            status: "True",
            reason: "Succeeded",
            message: "Successfully unpacked and stored content from resolved source",
            lastTransitionTime: ts,
            observedGeneration: 1,
          },
          {
            type: "Serving",
            status: "True",
            reason: "Available",
            message: "Serving desired content from resolved source",
            lastTransitionTime: ts,
            observedGeneration: 1,
          },
        ],
        resolvedSource: { type: "Image", image: { ref: `${image.split(":")[0]}@sha256:${"0".repeat(64)}` } },
        urls: { base: `https://catalogd-service.openshift-catalogd.svc/catalogs/${V1_CATALOG}` },
        lastUnpacked: ts,
      };
    },
    { subresource: "status" },
  );
}
