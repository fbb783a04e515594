/**
 * A freshly installed installer-provisioned cluster: what `openshift-install create cluster` leaves
 * behind on AWS (us-east-2) or Azure (centralus), converged, so the controllers start from rest.
 *
 * Deliberately absent, as on a real fresh cluster: the `cluster-monitoring-config` ConfigMap in
 * openshift-monitoring (created by the admin who configures monitoring), infra pools and MachineSets,
 * OperatorGroups and Subscriptions outside the platform, and the WMCO namespace.
 */
import { mergeClusterPolicies } from "../../builders/rollout-impact/rules";
import { seedOlmV1 } from "./olmv1";
import { Json } from "../../primitives/objects";
import {
  ROLE_LABEL,
  CURRENT_CONFIG,
  DESIRED_CONFIG,
  MCD_REASON,
  MCD_STATE,
  MACHINE_API_NAMESPACE,
} from "../../primitives/openshift";
import { KubeObject, Store } from "../store/types";
import {
  mergeMachineConfigs,
  renderedName,
  CONTROLLER_VERSION,
  GENERATED_BY_ANNOTATION,
  RELEASE_VERSION,
  RELEASE_VERSION_ANNOTATION,
} from "../controllers/machineconfig";
import { schemaListTypes } from "../apiserver/managed-fields";
import { managedStore } from "../controllers/field-manager";
import { ensureMachineConfigNode } from "../controllers/machine-config-node";
import { managedBootImagesStatus } from "../controllers/boot-images";
import { CONTROL_PLANE_TOPOLOGY, computePoolStatus } from "../controllers/mco-pools";
import { K, timestamp, controllerRef, hexHash, keyOf, uniqueName } from "../controllers/util";
import { CATALOGS, MARKETPLACE_NAMESPACE } from "./catalog";
import { baseMachineConfigs } from "./machineconfigs";
import { buildNode, copyMachineMetadata, linkNode, machineAddress, provisionMachine } from "./machines";
import { PLATFORMS, PlatformName, PlatformSpec } from "./platforms";

export interface SeedOptions {
  platform: PlatformName;
  /** Timestamps of seeded status; defaults to now. */
  now?: Date;
}

export interface SeededCluster {
  platform: PlatformName;
  infrastructureId: string;
  region: string;
  /** Zone names as nodes label them, e.g. `us-east-2a` or `centralus-1`. */
  zones: string[];
  workerMachineSets: string[];
  masterNodes: string[];
  workerNodes: string[];
  pools: Record<"master" | "worker", string>;
  catalogSource: { name: string; namespace: string };
}

const RELEASE_IMAGE =
  "quay.io/openshift-release-dev/ocp-release@sha256:2e8c2b6f1d9e0f3a7b4c5d6e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a";

export const INFRASTRUCTURE_ID = "cluster-zbwlg-cbgq7";
export const CLUSTER_NAME = "cluster-zbwlg";
export const BASE_DOMAIN = "sim.example.com";
const SSH_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHNpbXVsYXRlZC1vcGVuc2hpZnQtaW5zdGFsbC1rZXk core@installer";

export const PLATFORM_NAMESPACES = [
  "default",
  "kube-system",
  "kube-public",
  "openshift",
  "openshift-config",
  "openshift-config-managed",
  "openshift-image-registry",
  "openshift-ingress",
  "openshift-ingress-operator",
  "openshift-machine-api",
  "openshift-machine-config-operator",
  "openshift-marketplace",
  "openshift-monitoring",
  "openshift-operator-lifecycle-manager",
  "openshift-operators",
];

/** The RHCOS AMI of the installer's MachineSets, which the boot image stream publishes at install. */
export const RHCOS_AMI = "ami-0c4d1f6a9e2b37c85";

/** Provider-specific MachineSet and Infrastructure content, as the installer writes it. */
interface PlatformSeed {
  providerSpec(
    infraId: string,
    role: "master" | "worker",
    region: string,
    zone: string,
    instanceType: string,
  ): Json;
  platformStatus(infraId: string, region: string): Json;
  registryStorage(infraId: string, region: string): Json;
}

const PLATFORM_SEEDS: Record<PlatformName, PlatformSeed> = {
  aws: {
    providerSpec: (infraId, role, region, zone, instanceType) => ({
      ami: { id: RHCOS_AMI },
      apiVersion: "machine.openshift.io/v1beta1",
      blockDevices: [
        { ebs: { encrypted: true, iops: 0, kmsKey: { arn: "" }, volumeSize: 120, volumeType: "gp3" } },
      ],
      credentialsSecret: { name: "aws-cloud-credentials" },
      deviceIndex: 0,
      iamInstanceProfile: { id: `${infraId}-${role}-profile` },
      instanceType,
      kind: "AWSMachineProviderConfig",
      metadata: { creationTimestamp: null },
      metadataServiceOptions: {},
      placement: { availabilityZone: `${region}${zone}`, region },
      // openshift/installer pkg/asset/machines/aws/machines.go, provider: one reference per security group
      // (`-controlplane` for masters only) and the CAPA-era subnet names.
      securityGroups: [
        `${infraId}-node`,
        `${infraId}-lb`,
        ...(role === "master" ? [`${infraId}-controlplane`] : []),
      ].map((name) => ({ filters: [{ name: "tag:Name", values: [name] }] })),
      subnet: { filters: [{ name: "tag:Name", values: [`${infraId}-subnet-private-${region}${zone}`] }] },
      tags: [{ name: `kubernetes.io/cluster/${infraId}`, value: "owned" }],
      userDataSecret: { name: `${role}-user-data` },
    }),
    platformStatus: (_infraId, region) => ({ type: "AWS", aws: { region } }),
    registryStorage: (infraId, region) => ({
      s3: {
        bucket: `${infraId}-image-registry-${region}-${hexHash(infraId, 20)}`,
        encrypt: true,
        region,
        trustedCA: { name: "" },
        virtualHostedStyle: false,
      },
      managementState: "Managed",
    }),
  },
  azure: {
    providerSpec: (infraId, role, region, zone, instanceType) => ({
      apiVersion: "machine.openshift.io/v1beta1",
      credentialsSecret: { name: "azure-cloud-credentials", namespace: MACHINE_API_NAMESPACE },
      image: {
        offer: "",
        publisher: "",
        resourceID: `/resourceGroups/${infraId}-rg/providers/Microsoft.Compute/galleries/gallery_${infraId.replaceAll("-", "_")}/images/${infraId}-gen2/versions/latest`,
        sku: "",
        version: "",
      },
      kind: "AzureMachineProviderSpec",
      location: region,
      managedIdentity: `${infraId}-identity`,
      metadata: { creationTimestamp: null },
      networkResourceGroup: `${infraId}-rg`,
      osDisk: {
        diskSettings: {},
        diskSizeGB: 128,
        managedDisk: { storageAccountType: "Premium_LRS" },
        osType: "Linux",
      },
      publicIP: false,
      publicLoadBalancer: infraId,
      resourceGroup: `${infraId}-rg`,
      subnet: `${infraId}-${role}-subnet`,
      userDataSecret: { name: `${role}-user-data` },
      vmSize: instanceType,
      vnet: `${infraId}-vnet`,
      zone,
    }),
    platformStatus: (infraId) => ({
      type: "Azure",
      azure: {
        cloudName: "AzurePublicCloud",
        networkResourceGroupName: `${infraId}-rg`,
        resourceGroupName: `${infraId}-rg`,
      },
    }),
    registryStorage: (infraId) => ({
      azure: {
        accountName: `imageregistry${infraId.replaceAll("-", "").slice(0, 12)}`,
        cloudName: "AzurePublicCloud",
        container: `${infraId}-image-registry-${hexHash(infraId, 20)}`,
        // The CRD's default, which the API server fills in whenever it reads the object.
        networkAccess: { type: "External" },
      },
      managementState: "Managed",
    }),
  },
};

function ns(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: {
        "kubernetes.io/metadata.name": name,
        ...(name.startsWith("openshift") ? { "openshift.io/cluster-monitoring": "true" } : {}),
      },
    },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  };
}

function secret(name: string, namespace: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    type: "Opaque",
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
  };
}

function machineLabels(infraId: string, role: string, machineSet?: string): Record<string, string> {
  return {
    "machine.openshift.io/cluster-api-cluster": infraId,
    "machine.openshift.io/cluster-api-machine-role": role,
    "machine.openshift.io/cluster-api-machine-type": role,
    ...(machineSet ? { "machine.openshift.io/cluster-api-machineset": machineSet } : {}),
  };
}

function pool(role: "master" | "worker"): KubeObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: {
      name: role,
      labels: {
        "machineconfiguration.openshift.io/mco-built-in": "",
        [`pools.operator.machineconfiguration.openshift.io/${role}`]: "",
        ...(role === "master"
          ? { "operator.machineconfiguration.openshift.io/required-for-upgrade": "" }
          : {}),
      },
    },
    spec: {
      machineConfigSelector: { matchLabels: { [ROLE_LABEL]: role } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${role}`]: "" } },
      paused: false,
    },
  };
}

/** Seeds the store; returns the names tests and demos refer to. */
export function seedCluster(store: Store, options: SeedOptions): SeededCluster {
  const now = options.now ?? new Date();
  const ts = timestamp(now);
  const spec: PlatformSpec = PLATFORMS[options.platform];
  const seed = PLATFORM_SEEDS[options.platform];
  const infraId = INFRASTRUCTURE_ID;
  const region = spec.region;

  for (const name of PLATFORM_NAMESPACES) store.create(ns(name));

  store.create({
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: "cluster" },
    spec: {
      cloudConfig: { name: options.platform === "aws" ? "" : "cloud-provider-config" },
      platformSpec: { type: spec.type, [options.platform]: {} },
    },
    status: {
      apiServerInternalURI: `https://api-int.${CLUSTER_NAME}.${BASE_DOMAIN}:6443`,
      apiServerURL: `https://api.${CLUSTER_NAME}.${BASE_DOMAIN}:6443`,
      controlPlaneTopology: "HighlyAvailable",
      cpuPartitioning: "None",
      etcdDiscoveryDomain: "",
      infrastructureName: infraId,
      infrastructureTopology: "HighlyAvailable",
      platform: spec.type,
      platformStatus: seed.platformStatus(infraId, region),
    },
  });
  store.create({
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterVersion",
    metadata: { name: "version" },
    spec: { channel: "stable-4.17", clusterID: "9d5e2c4a-6b7f-4e1a-8c3d-2f0b1a9e7d64" },
    status: {
      availableUpdates: null,
      desired: {
        image: RELEASE_IMAGE,
        version: RELEASE_VERSION,
      },
      history: [
        {
          completionTime: ts,
          image: RELEASE_IMAGE,
          startedTime: ts,
          state: "Completed",
          verified: false,
          version: RELEASE_VERSION,
        },
      ],
      observedGeneration: 1,
      conditions: [
        {
          type: "Available",
          status: "True",
          message: `Done applying ${RELEASE_VERSION}`,
          lastTransitionTime: ts,
        },
        { type: "Failing", status: "False", lastTransitionTime: ts },
        {
          type: "Progressing",
          status: "False",
          message: `Cluster version is ${RELEASE_VERSION}`,
          lastTransitionTime: ts,
        },
      ],
    },
  });
  // The MCO's operator knobs; its nodeDisruptionPolicy decides what a node does for a change.
  store.create({
    apiVersion: "operator.openshift.io/v1",
    kind: "MachineConfiguration",
    metadata: { name: "cluster" },
    spec: { logLevel: "Normal", managementState: "Managed", operatorLogLevel: "Normal" },
    // As the operator reflects the platform's default (opted in on AWS and Azure).
    status: {
      managedBootImagesStatus: managedBootImagesStatus(
        undefined,
        store.get(keyOf(K.infrastructure, "cluster")),
      ),
      // The defaults merged with an empty spec, as machine-configuration.ts syncs them.
      nodeDisruptionPolicyStatus: { clusterPolicies: mergeClusterPolicies(undefined) },
      observedGeneration: 1,
    },
  });
  // The boot images of this release (the CVO writes them from the release payload): the stream the MCO's
  // MachineSet boot image controller updates MachineSets to.
  store.create(bootImageStream(region, RHCOS_AMI));
  // The operators that made these objects own the spec they defaulted, as on a cluster: a stack that
  // applies other values must force. Lists are atomic here, as without a schema; these specs have none.
  const operator = (manager: string) =>
    managedStore(store, manager, { types: () => schemaListTypes(undefined), now: () => now });
  operator("ingress-operator").create({
    apiVersion: "operator.openshift.io/v1",
    kind: "IngressController",
    metadata: {
      name: "default",
      namespace: "openshift-ingress-operator",
      finalizers: ["ingresscontroller.operator.openshift.io/finalizer-ingresscontroller"],
    },
    spec: {
      clientTLS: { clientCA: { name: "" }, clientCertificatePolicy: "" },
      // The CRD's defaults, which the API server fills in whenever it reads the object.
      closedClientConnectionPolicy: "Continue",
      httpCompression: {},
      httpEmptyRequestsPolicy: "Respond",
      idleConnectionTerminationPolicy: "Immediate",
      httpErrorCodePages: { name: "" },
      replicas: 2,
      tuningOptions: { reloadInterval: "0s" },
      unsupportedConfigOverrides: null,
    },
    status: {
      availableReplicas: 2,
      domain: `apps.${CLUSTER_NAME}.${BASE_DOMAIN}`,
      endpointPublishingStrategy: {
        loadBalancer: { dnsManagementPolicy: "Managed", scope: "External" },
        type: "LoadBalancerService",
      },
      selector: "ingresscontroller.operator.openshift.io/deployment-ingresscontroller=default",
      tlsProfile: { minTLSVersion: "VersionTLS12" },
      conditions: [{ type: "Available", status: "True", reason: "", lastTransitionTime: ts }],
    },
  });
  operator("cluster-image-registry-operator").create({
    apiVersion: "imageregistry.operator.openshift.io/v1",
    kind: "Config",
    metadata: { name: "cluster", finalizers: ["imageregistry.operator.openshift.io/finalizer"] },
    spec: {
      httpSecret: hexHash(`registry/${infraId}`, 64),
      logLevel: "Normal",
      managementState: "Managed",
      observedConfig: null,
      operatorLogLevel: "Normal",
      proxy: {},
      replicas: 2,
      requests: { read: { maxWaitInQueue: "0s" }, write: { maxWaitInQueue: "0s" } },
      rolloutStrategy: "RollingUpdate",
      storage: seed.registryStorage(infraId, region),
      unsupportedConfigOverrides: null,
    },
    status: { readyReplicas: 2, storageManaged: true, storage: seed.registryStorage(infraId, region) },
  });

  // Credentials and pointer Ignition the installer leaves for the machine-api.
  store.create(secret(spec.credentialsSecret, MACHINE_API_NAMESPACE, { credentials: "simulated" }));
  for (const role of ["master", "worker"]) {
    store.create(
      secret(`${role}-user-data`, MACHINE_API_NAMESPACE, {
        disableTemplating: "true",
        userData: JSON.stringify({
          ignition: {
            config: {
              merge: [{ source: `https://api-int.${CLUSTER_NAME}.${BASE_DOMAIN}:22623/config/${role}` }],
            },
            version: "3.2.0",
          },
        }),
      }),
    );
  }
  store.create(secret("pull-secret", "openshift-config", { ".dockerconfigjson": '{"auths":{}}' }));

  seedOlmV1(store, now);
  for (const [name, catalog] of Object.entries(CATALOGS)) {
    store.create({
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "CatalogSource",
      metadata: { name, namespace: MARKETPLACE_NAMESPACE },
      spec: {
        displayName: catalog.displayName,
        grpcPodConfig: {
          extractContent: { cacheDir: "/tmp/cache", catalogDir: "/configs" },
          memoryTarget: "30Mi",
          securityContextConfig: "restricted",
        },
        icon: { base64data: "", mediatype: "" },
        image: catalog.image,
        priority: -100,
        publisher: catalog.publisher,
        sourceType: "grpc",
        updateStrategy: { registryPoll: { interval: "10m" } },
      },
      status: {
        connectionState: {
          address: `${name}.${MARKETPLACE_NAMESPACE}.svc:50051`,
          lastConnect: ts,
          lastObservedState: "READY",
        },
        registryService: {
          createdAt: ts,
          port: "50051",
          protocol: "grpc",
          serviceName: name,
          serviceNamespace: MARKETPLACE_NAMESPACE,
        },
      },
    });
  }

  // Machine configuration: base configs, the rendered config of each pool, then the pools themselves.
  const rendered: Record<string, string> = {};
  for (const role of ["master", "worker"] as const) {
    const configs = baseMachineConfigs(role, SSH_KEY).map((mc) => store.create(mc));
    const merged = mergeMachineConfigs(configs);
    rendered[role] = renderedName(role, merged);
    const created = store.create(pool(role));
    store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: {
        name: rendered[role],
        annotations: {
          [GENERATED_BY_ANNOTATION]: CONTROLLER_VERSION,
          [RELEASE_VERSION_ANNOTATION]: RELEASE_VERSION,
        },
        ownerReferences: [controllerRef(created)],
      },
      spec: merged,
    });
    const source = configs.map((c) => ({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      name: c.metadata.name,
    }));
    store.mutate(keyOf(K.pool, role), (p) => {
      (p.spec as Json).configuration = { name: rendered[role], source };
    });
  }

  // Machines and nodes: three masters (standalone Machines) and one worker per zone from its MachineSet.
  const ips = new Set<string>();
  const machineNames = new Set<string>();
  const nodesByRole: Record<string, string[]> = { master: [], worker: [] };
  const addMachine = (
    role: "master" | "worker",
    name: string,
    labels: Record<string, string>,
    machineSpec: Json,
    owner?: KubeObject,
  ) => {
    machineNames.add(name);
    const machine: KubeObject = {
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "Machine",
      metadata: {
        name,
        namespace: MACHINE_API_NAMESPACE,
        labels,
        finalizers: ["machine.machine.openshift.io"],
        ...(owner ? { ownerReferences: [controllerRef(owner)] } : {}),
      },
      spec: machineSpec,
      status: { phase: "Running" },
    };
    provisionMachine(machine, infraId, (ip) => ips.has(ip), now);
    const node = buildNode(machine, { os: "linux" }, now);
    copyMachineMetadata(node, machine);
    ips.add(machineAddress(machine, "InternalIP") ?? "");
    node.metadata.annotations = {
      ...node.metadata.annotations,
      [CONTROL_PLANE_TOPOLOGY]: "HighlyAvailable",
      [CURRENT_CONFIG]: rendered[role],
      [DESIRED_CONFIG]: rendered[role],
      [MCD_REASON]: "",
      [MCD_STATE]: "Done",
    };
    const createdNode = store.create(node);
    ensureMachineConfigNode(store, createdNode, role, rendered[role], now);
    linkNode(machine, createdNode, now);
    store.create(machine);
    nodesByRole[role].push(createdNode.metadata.name);
  };
  spec.zones.forEach((zone, i) => {
    addMachine("master", `${infraId}-master-${i}`, machineLabels(infraId, "master"), {
      lifecycleHooks: {},
      metadata: {},
      providerSpec: { value: seed.providerSpec(infraId, "master", region, zone, spec.masterInstanceType) },
    });
  });
  const workerMachineSets: string[] = [];
  for (const zone of spec.zones) {
    const msName = spec.machineSetName(infraId, "worker", region, zone);
    workerMachineSets.push(msName);
    const template = {
      metadata: { labels: machineLabels(infraId, "worker", msName) },
      spec: {
        lifecycleHooks: {},
        metadata: {},
        providerSpec: { value: seed.providerSpec(infraId, "worker", region, zone, spec.workerInstanceType) },
      },
    };
    const ms = store.create({
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineSet",
      metadata: {
        name: msName,
        namespace: MACHINE_API_NAMESPACE,
        labels: { "machine.openshift.io/cluster-api-cluster": infraId },
        annotations: {
          "capacity.cluster-autoscaler.kubernetes.io/labels": `kubernetes.io/arch=amd64`,
          "machine.openshift.io/GPU": "0",
          "machine.openshift.io/memoryMb": "16384",
          "machine.openshift.io/vCPU": "4",
        },
      },
      spec: {
        replicas: 1,
        selector: {
          matchLabels: {
            "machine.openshift.io/cluster-api-cluster": infraId,
            "machine.openshift.io/cluster-api-machineset": msName,
          },
        },
        template,
      },
    });
    // Same naming as the machine-api controller, so it recognises the installer's machines as its own.
    const name = uniqueName(`${msName}-`, msName, (n) => machineNames.has(n));
    addMachine("worker", name, { ...template.metadata.labels }, structuredClone(template.spec), ms);
    store.mutate(
      keyOf(K.machineSet, msName, MACHINE_API_NAMESPACE),
      (o) => {
        o.status = {
          availableReplicas: 1,
          fullyLabeledReplicas: 1,
          labelSelector: `machine.openshift.io/cluster-api-cluster=${infraId},machine.openshift.io/cluster-api-machineset=${msName}`,
          observedGeneration: 1,
          readyReplicas: 1,
          replicas: 1,
        };
      },
      { subresource: "status" },
    );
  }

  const nodes = store.list("v1", "Node");
  for (const role of ["master", "worker"] as const) {
    const current = store.get(keyOf(K.pool, role))!;
    const members = nodes.filter((n) => nodesByRole[role].includes(n.metadata.name));
    store.mutate(
      keyOf(K.pool, role),
      (p) => {
        p.status = computePoolStatus(current, members, now);
      },
      { subresource: "status" },
    );
  }

  return {
    platform: options.platform,
    infrastructureId: infraId,
    region,
    zones: spec.zones.map((z) => spec.zoneName(region, z)),
    workerMachineSets,
    masterNodes: nodesByRole.master,
    workerNodes: nodesByRole.worker,
    pools: { master: "master", worker: "worker" },
    catalogSource: { name: "redhat-operators", namespace: MARKETPLACE_NAMESPACE },
  };
}

export { SSH_KEY as SEED_SSH_KEY };

/** The RHCOS version of this release's Azure marketplace images. */
export const RHCOS_AZURE_VERSION = "419.94.202505230000";

/**
 * `openshift-machine-config-operator/coreos-bootimages`: the CoreOS stream metadata of the release
 * (`data.stream`), from which the MCO takes each region's RHCOS AMI and, on Azure, the marketplace
 * images (`rhel-coreos-extensions.marketplace.azure`: unpaid ones, which replace images uploaded at
 * install, and the paid OCP ones). A test "upgrades" the cluster by writing another AMI or version here.
 */
export function bootImageStream(region: string, ami: string, azureVersion = RHCOS_AZURE_VERSION): KubeObject {
  const build = azureVersion.split(".")[0];
  const images = (publisher: string, offer: string, gen1: string, gen2: string) => ({
    hyperVGen1: { publisher, offer, sku: gen1, version: azureVersion },
    hyperVGen2: { publisher, offer, sku: gen2, version: azureVersion },
  });
  const stream = {
    stream: "rhcos-9",
    architectures: {
      x86_64: {
        images: { aws: { regions: { [region]: { release: RELEASE_VERSION, image: ami } } } },
        "rhel-coreos-extensions": {
          marketplace: {
            azure: {
              "no-purchase-plan": images("azureopenshift", "aro4", `aro_${build}`, `${build}-v2`),
              ocp: images("redhat", "rh-ocp-worker", "rh-ocp-worker-gen1", "rh-ocp-worker"),
            },
          },
        },
      },
    },
  };
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "coreos-bootimages", namespace: "openshift-machine-config-operator" },
    data: { releaseVersion: RELEASE_VERSION, stream: JSON.stringify(stream) },
  };
}
