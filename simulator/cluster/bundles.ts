/**
 * What the operator bundles of the simulated catalog hold besides their CSV's metadata: the
 * Deployments of the CSV's install strategy and the CRDs the operator owns
 * (`spec.customresourcedefinitions.owned`), each with the schema of its main fields as the operator
 * ships it (names, groups, versions, scopes and the required fields of the operator's documentation;
 * the many optional fields left out are kept by `x-kubernetes-preserve-unknown-fields` where the real
 * schema has more). OLM's InstallPlan creates the CRDs before the CSV (catalog operator, ExecutePlan).
 */
import { Json } from "../../primitives/objects";

type Schema = Json;

const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const int = (description: string, extra: Schema = {}): Schema => ({ type: "integer", description, ...extra });
const object = (description: string, properties: Record<string, Schema>, required?: string[]): Schema => ({
  type: "object",
  description,
  properties,
  ...(required ? { required } : {}),
});
const list = (description: string, items: Schema, extra: Schema = {}): Schema => ({
  type: "array",
  description,
  items,
  ...extra,
});
const open = (description: string): Schema => ({
  type: "object",
  description,
  "x-kubernetes-preserve-unknown-fields": true,
});
const conditions = list("Conditions of the resource.", open("A condition."), {
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
});
const tolerations = list(
  "Tolerations of the pods the operator runs for the resource.",
  open("A toleration."),
);
const nodeSelector: Schema = {
  type: "object",
  description: "Nodes the pods the operator runs for the resource are scheduled on.",
  additionalProperties: { type: "string" },
};
const secretRef = (description: string, types?: string[]): Schema =>
  object(
    description,
    {
      name: str("Name of the secret in the namespace of the resource."),
      ...(types ? { type: str("Type of the storage the secret describes.", { enum: types }) } : {}),
      credentialMode: str("How the operator obtains credentials.", {
        enum: ["static", "token", "token-cco"],
      }),
    },
    types ? ["name", "type"] : ["name"],
  );

export interface OwnedCrd {
  /** The CustomResourceDefinition, as the bundle ships it. */
  definition: Json;
  /** A finalizer the operator puts on each instance and removes once it has cleaned up after it. */
  finalizer?: string;
}

function crd(
  group: string,
  kind: string,
  plural: string,
  scope: "Namespaced" | "Cluster",
  versions: Array<{ name: string; spec: Schema; storage?: boolean; served?: boolean }>,
  shortNames: string[] = [],
): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${group}`,
      annotations: { "controller-gen.kubebuilder.io/version": "v0.16.3" },
    },
    spec: {
      group,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        ...(shortNames.length ? { shortNames } : {}),
      },
      scope,
      versions: versions.map((v, i) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? i === 0,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            description: `${kind} is the Schema for the ${plural} API.`,
            properties: {
              apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
              kind: str("Kind is a string value representing the REST resource this object represents."),
              metadata: { type: "object" },
              spec: v.spec,
              status: object(`${kind}Status defines the observed state of ${kind}.`, { conditions }),
            },
          },
        },
      })),
    },
  };
}

const LOKI_STACK = crd("loki.grafana.com", "LokiStack", "lokistacks", "Namespaced", [
  {
    name: "v1",
    spec: object(
      "LokiStackSpec defines the desired state of LokiStack.",
      {
        managementState: str("Whether the operator manages the stack.", {
          enum: ["Managed", "Unmanaged"],
          default: "Managed",
        }),
        size: str("The T-shirt size of the deployment.", {
          enum: ["1x.demo", "1x.pico", "1x.extra-small", "1x.small", "1x.medium"],
        }),
        storage: object(
          "Object storage of the stack.",
          {
            secret: secretRef("The secret holding the object storage's location and credentials.", [
              "azure",
              "gcs",
              "s3",
              "swift",
              "alibabacloud",
            ]),
            schemas: list(
              "Schema versions with their effective dates.",
              object(
                "A schema version.",
                {
                  version: str("Schema version.", { enum: ["v11", "v12", "v13"] }),
                  effectiveDate: str("Date from which the version applies (YYYY-MM-DD).", {
                    pattern: "^([0-9]{4,})([-]([0-9]{2})){2}$",
                  }),
                },
                ["version", "effectiveDate"],
              ),
            ),
            tls: open("TLS of the object storage endpoint."),
          },
          ["secret"],
        ),
        storageClassName: str(
          "Storage class of the persistent volumes of the ingester, querier and compactor.",
        ),
        replicationFactor: int("Deprecated: use replication.factor.", { minimum: 1 }),
        replication: object("Replication of the stack.", {
          factor: int("Copies of each log stream.", { minimum: 1 }),
          zones: list("Zones to spread replicas over.", open("A zone.")),
        }),
        limits: open("Limits of the stack and its tenants."),
        rules: open("The ruler's rule selection."),
        template: open("Per-component overrides: replicas, node selectors and tolerations."),
        tenants: object("Tenancy of the stack.", {
          mode: str("Tenancy mode.", {
            enum: ["static", "dynamic", "openshift-logging", "openshift-network"],
            default: "openshift-logging",
          }),
          authentication: open("Per-tenant authentication."),
          authorization: open("Tenant authorization."),
        }),
      },
      ["size", "storage", "storageClassName"],
    ),
  },
  { name: "v1beta1", served: false, storage: false, spec: open("LokiStackSpec of the deprecated version.") },
]);

const CLUSTER_LOG_FORWARDER = crd(
  "observability.openshift.io",
  "ClusterLogForwarder",
  "clusterlogforwarders",
  "Namespaced",
  [
    {
      name: "v1",
      spec: object(
        "ClusterLogForwarderSpec defines how logs are collected and forwarded.",
        {
          managementState: str("Whether the operator manages the forwarder.", {
            enum: ["Managed", "Unmanaged"],
          }),
          serviceAccount: object(
            "The service account the collector runs as, which must be allowed to collect the inputs.",
            { name: str("Name of the service account.", { minLength: 1 }) },
            ["name"],
          ),
          collector: object("The collector's pods.", {
            nodeSelector,
            tolerations,
            resources: open("Compute resources of the collector."),
          }),
          inputs: list(
            "Inputs of logs besides the built-in application, infrastructure and audit.",
            object(
              "An input.",
              {
                name: str("Name of the input.", { pattern: "^[a-z][a-z0-9-]{2,62}[a-z0-9]$" }),
                type: str("Type of the input.", {
                  enum: ["application", "infrastructure", "audit", "receiver"],
                }),
              },
              ["name", "type"],
            ),
          ),
          outputs: list(
            "Destinations of logs.",
            {
              ...object(
                "An output.",
                {
                  name: str("Name of the output.", { pattern: "^[a-z][a-z0-9-]{2,62}[a-z0-9]$" }),
                  type: str("Type of the output.", {
                    enum: [
                      "azureMonitor",
                      "cloudwatch",
                      "elasticsearch",
                      "googleCloudLogging",
                      "http",
                      "kafka",
                      "loki",
                      "lokiStack",
                      "otlp",
                      "splunk",
                      "syslog",
                    ],
                  }),
                },
                ["name", "type"],
              ),
              "x-kubernetes-preserve-unknown-fields": true,
            },
            { minItems: 1 },
          ),
          pipelines: list(
            "Routes of inputs to outputs.",
            object(
              "A pipeline.",
              {
                name: str("Name of the pipeline."),
                inputRefs: list("Inputs of the pipeline.", { type: "string" }, { minItems: 1 }),
                outputRefs: list("Outputs of the pipeline.", { type: "string" }, { minItems: 1 }),
                filterRefs: list("Filters applied in order.", { type: "string" }),
              },
              ["name", "inputRefs", "outputRefs"],
            ),
            { minItems: 1 },
          ),
          filters: list("Filters of log records.", {
            ...object("A filter.", { name: str("Name of the filter."), type: str("Type of the filter.") }, [
              "name",
              "type",
            ]),
            "x-kubernetes-preserve-unknown-fields": true,
          }),
        },
        ["serviceAccount", "outputs", "pipelines"],
      ),
    },
  ],
  ["obsclf"],
);

const LOG_FILE_METRIC_EXPORTER = crd(
  "logging.openshift.io",
  "LogFileMetricExporter",
  "logfilemetricexporters",
  "Namespaced",
  [
    {
      name: "v1alpha1",
      spec: object("LogFileMetricExporterSpec defines the exporter's pods.", {
        nodeSelector,
        tolerations,
        resources: open("Compute resources of the exporter."),
      }),
    },
  ],
  ["lfme"],
);

const LOCAL_VOLUME = crd("local.storage.openshift.io", "LocalVolume", "localvolumes", "Namespaced", [
  {
    name: "v1",
    spec: object(
      "LocalVolumeSpec defines the local devices to provision persistent volumes from.",
      {
        managementState: str("Whether the operator manages the volume.", {
          enum: ["Managed", "Unmanaged", "Removed", "Force"],
        }),
        logLevel: str("Log level of the provisioner.", { enum: ["Normal", "Debug", "Trace", "TraceAll"] }),
        nodeSelector: object(
          "Nodes whose devices are used.",
          { nodeSelectorTerms: list("Terms, ORed.", open("A node selector term.")) },
          ["nodeSelectorTerms"],
        ),
        tolerations,
        storageClassDevices: list(
          "Devices per storage class.",
          object(
            "The devices of one storage class.",
            {
              storageClassName: str("Storage class the persistent volumes belong to."),
              volumeMode: str("Whether volumes are formatted or raw.", {
                enum: ["Filesystem", "Block"],
                default: "Filesystem",
              }),
              fsType: str("File system of Filesystem volumes, e.g. xfs or ext4."),
              devicePaths: list(
                "Device paths, preferably /dev/disk/by-id/... .",
                { type: "string" },
                { minItems: 1 },
              ),
              forceWipeDevicesAndDestroyAllData: {
                type: "boolean",
                description: "Wipe devices that hold data before use.",
              },
            },
            ["storageClassName", "devicePaths"],
          ),
          { minItems: 1 },
        ),
      },
      ["storageClassDevices"],
    ),
  },
]);

const LOCAL_VOLUME_SET = crd(
  "local.storage.openshift.io",
  "LocalVolumeSet",
  "localvolumesets",
  "Namespaced",
  [
    {
      name: "v1alpha1",
      spec: object(
        "LocalVolumeSetSpec defines devices discovered by their properties.",
        {
          storageClassName: str("Storage class the persistent volumes belong to."),
          volumeMode: str("Whether volumes are formatted or raw.", { enum: ["Filesystem", "Block"] }),
          fsType: str("File system of Filesystem volumes."),
          maxDeviceCount: int("Devices to use per node at most.", { minimum: 1 }),
          nodeSelector: open("Nodes whose devices are used."),
          tolerations,
          deviceInclusionSpec: object("Which devices qualify.", {
            deviceTypes: list(
              "Device types.",
              str("A device type.", { enum: ["disk", "part", "loop", "mpath"] }),
            ),
            minSize: str("Smallest device size."),
            maxSize: str("Largest device size."),
          }),
        },
        ["storageClassName"],
      ),
    },
  ],
);

const ARGO_CD = crd(
  "argoproj.io",
  "ArgoCD",
  "argocds",
  "Namespaced",
  [
    { name: "v1beta1", spec: open("ArgoCDSpec defines the desired state of an Argo CD instance.") },
    { name: "v1alpha1", storage: false, spec: open("ArgoCDSpec of the deprecated version.") },
  ],
  ["argocd"],
);

/** The owned CRDs of each package's bundles. */
export const OWNED_CRDS: Record<string, OwnedCrd[]> = {
  "cluster-logging": [{ definition: CLUSTER_LOG_FORWARDER }, { definition: LOG_FILE_METRIC_EXPORTER }],
  "loki-operator": [{ definition: LOKI_STACK }],
  // The local-storage operator keeps a LocalVolume until it has deleted its provisioner and volumes.
  "local-storage-operator": [
    { definition: LOCAL_VOLUME, finalizer: "storage.openshift.com/local-volume-protection" },
    { definition: LOCAL_VOLUME_SET },
  ],
  "openshift-gitops-operator": [{ definition: ARGO_CD }],
};

/** The Deployment names of each package's install strategy (the operator's controller manager). */
export const OPERATOR_DEPLOYMENTS: Record<string, string> = {
  "windows-machine-config-operator": "windows-machine-config-operator",
  "cluster-logging": "cluster-logging-operator",
  "loki-operator": "loki-operator-controller-manager",
  "local-storage-operator": "local-storage-operator",
  "openshift-gitops-operator": "openshift-gitops-operator-controller-manager",
};

/** The CSV's `spec.customresourcedefinitions.owned` entry of an owned CRD. */
export function ownedEntry(owned: OwnedCrd): Json {
  const spec = owned.definition.spec as {
    names: { kind: string };
    versions: Array<{ name: string; storage: boolean }>;
  };
  const storage = spec.versions.find((v) => v.storage) ?? spec.versions[0];
  return {
    name: (owned.definition.metadata as { name: string }).name,
    version: storage.name,
    kind: spec.names.kind,
    displayName: spec.names.kind,
    description: `${spec.names.kind} of the operator.`,
  };
}
