/**
 * What a cloud provider and a booting kubelet contribute: a Machine's provider-assigned fields once its
 * instance exists, and the Node its kubelet registers. Shared by the seed and the machine-api controller.
 */
import { Json, field, labelsOf, obj } from "../../primitives/objects";
import { KubeObject } from "../store/types";
import { timestamp } from "../controllers/util";
import { PLATFORMS, PlatformName, PlatformSpec, Placement, instanceType, machineIp } from "./platforms";

export const OS_ID_LABEL = "machine.openshift.io/os-id";

export function isWindowsMachine(machine: KubeObject): boolean {
  return labelsOf(machine)[OS_ID_LABEL] === "Windows";
}

export function providerSpecOf(machine: KubeObject): Json {
  return obj(field(machine, "spec", "providerSpec", "value"));
}

export function machinePlatform(machine: KubeObject): PlatformName {
  return providerSpecOf(machine).kind === "AzureMachineProviderSpec" ? "azure" : "aws";
}

export function machinePlacement(machine: KubeObject): { spec: PlatformSpec; placement: Placement } {
  const spec = PLATFORMS[machinePlatform(machine)];
  return { spec, placement: spec.placement(providerSpecOf(machine)) };
}

function zoneIndex(spec: PlatformSpec, placement: Placement): number {
  const i = spec.zones.findIndex((z) => placement.zone.endsWith(z));
  return i < 0 ? 0 : i;
}

/**
 * The fields the cloud actuator fills in when the instance exists: providerID, addresses, instance
 * labels and provider status. `ipTaken` keeps addresses unique in the cluster.
 */
export function provisionMachine(
  machine: KubeObject,
  infraId: string,
  ipTaken: (ip: string) => boolean,
  now: Date,
): void {
  const { spec, placement } = machinePlacement(machine);
  const name = machine.metadata.name;
  const ip = machineIp(spec, name, zoneIndex(spec, placement), ipTaken);
  const nodeName = spec.nodeName(name, placement, ip);
  const providerID = spec.providerId(name, placement, infraId);
  machine.metadata.labels = {
    ...labelsOf(machine),
    "machine.openshift.io/instance-type": placement.instanceType,
    "machine.openshift.io/region": placement.region,
    "machine.openshift.io/zone": placement.zone,
  };
  machine.metadata.annotations = {
    ...(machine.metadata.annotations ?? {}),
    "machine.openshift.io/instance-state": "running",
  };
  (machine.spec as Json).providerID = providerID;
  const status = obj(machine.status);
  status.addresses = [
    { address: ip, type: "InternalIP" },
    { address: nodeName, type: "InternalDNS" },
    { address: nodeName, type: "Hostname" },
  ];
  status.providerStatus = {
    conditions: [
      {
        lastTransitionTime: timestamp(now),
        message: "Machine successfully created",
        reason: "MachineCreationSucceeded",
        status: "True",
        type: "MachineCreation",
      },
    ],
    instanceId: providerID.slice(providerID.lastIndexOf("/") + 1),
    instanceState: "running",
  };
  machine.status = status;
}

export function machineAddress(machine: KubeObject, type: string): string | undefined {
  const addresses = field<Array<{ type: string; address: string }>>(machine, "status", "addresses") ?? [];
  return addresses.find((a) => a.type === type)?.address;
}

export interface NodeOs {
  os: "linux" | "windows";
  /** `node.kubernetes.io/windows-build`, Windows only. */
  windowsBuild?: string;
}

const LINUX_INFO = {
  osImage: "Red Hat Enterprise Linux CoreOS 417.94.202410211619-0",
  kernelVersion: "5.14.0-427.40.1.el9_4.x86_64",
  containerRuntimeVersion: "cri-o://1.30.6-3.rhaos4.17.git2ef4f2e.el9",
  kubeletVersion: "v1.30.5",
};

/** Windows builds by kernel build number, as WMCO's supported images report them. */
const WINDOWS_INFO: Record<string, { osImage: string; kernelVersion: string }> = {
  "10.0.17763": { osImage: "Windows Server 2019 Datacenter", kernelVersion: "10.0.17763.6414" },
  "10.0.20348": { osImage: "Windows Server 2022 Datacenter", kernelVersion: "10.0.20348.2762" },
  "10.0.26100": { osImage: "Windows Server 2025 Datacenter", kernelVersion: "10.0.26100.2033" },
};

/**
 * The Node a Machine's kubelet registers: placement labels, its role's labels and taints, as the kubelet
 * unit's `--node-labels` and `--register-with-taints` give them. The Machine's own node labels and
 * taints come later, from the nodelink controller (`copyMachineMetadata`).
 */
export function buildNode(machine: KubeObject, os: NodeOs, now: Date): KubeObject {
  const { spec, placement } = machinePlacement(machine);
  const size = instanceType(spec, placement.instanceType);
  const name = machineAddress(machine, "InternalDNS") ?? machine.metadata.name;
  const ip = machineAddress(machine, "InternalIP") ?? "10.0.0.1";
  const hostname = name.split(".")[0];
  const windows = os.os === "windows";
  const osLabels: Record<string, string> = windows
    ? {
        "node.kubernetes.io/windows-build": os.windowsBuild ?? "10.0.20348",
        "node.openshift.io/os_id": "Windows",
      }
    : { "node.openshift.io/os_id": "rhcos" };
  // The kubelet registers the role it was booted for: the pointer Ignition of `<role>-user-data` makes
  // the MCS serve that role's config, whose kubelet unit passes --node-labels and --register-with-taints.
  const userData = field<string>(providerSpecOf(machine), "userDataSecret", "name") ?? "";
  const role = windows ? undefined : /^(.+)-user-data$/.exec(userData)?.[1];
  const roleLabels: Record<string, string> = role ? { [`node-role.kubernetes.io/${role}`]: "" } : {};
  if (role === "master") roleLabels["node-role.kubernetes.io/control-plane"] = "";
  const roleTaints =
    role === "master" ? [{ effect: "NoSchedule", key: "node-role.kubernetes.io/master" }] : [];
  const ts = timestamp(now);
  const info = windows
    ? {
        ...WINDOWS_INFO[os.windowsBuild ?? "10.0.20348"],
        containerRuntimeVersion: "containerd://1.7.22",
        kubeletVersion: "v1.30.5-1797+c1e0b7ab1b1f15",
      }
    : LINUX_INFO;
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: ts,
    lastTransitionTime: ts,
  });
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "beta.kubernetes.io/arch": size.arch,
        "beta.kubernetes.io/instance-type": placement.instanceType,
        "beta.kubernetes.io/os": os.os,
        "failure-domain.beta.kubernetes.io/region": placement.region,
        "failure-domain.beta.kubernetes.io/zone": placement.zone,
        "kubernetes.io/arch": size.arch,
        "kubernetes.io/hostname": hostname,
        "kubernetes.io/os": os.os,
        "node.kubernetes.io/instance-type": placement.instanceType,
        "topology.kubernetes.io/region": placement.region,
        "topology.kubernetes.io/zone": placement.zone,
        ...osLabels,
        ...roleLabels,
      },
      annotations: {
        "machine.openshift.io/machine": `${machine.metadata.namespace}/${machine.metadata.name}`,
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    },
    spec: {
      providerID: field<string>(machine, "spec", "providerID"),
      ...(windows || roleTaints.length > 0
        ? {
            taints: [
              ...(windows ? [{ effect: "NoSchedule", key: "os", value: "Windows" }] : []),
              ...roleTaints,
            ],
          }
        : {}),
    },
    status: {
      addresses: [
        { address: ip, type: "InternalIP" },
        { address: hostname, type: "Hostname" },
        { address: name, type: "InternalDNS" },
      ],
      allocatable: { cpu: `${Number(size.cpu) * 1000 - 500}m`, memory: size.memory, pods: "250" },
      capacity: { cpu: size.cpu, memory: size.memory, pods: "250" },
      conditions: [
        condition(
          "MemoryPressure",
          "False",
          "KubeletHasSufficientMemory",
          "kubelet has sufficient memory available",
        ),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
      ],
      nodeInfo: {
        architecture: size.arch,
        operatingSystem: os.os,
        ...info,
      },
    },
  };
}

/** The Machine's view of its node: `status.nodeRef` and phase Running. */
export function linkNode(machine: KubeObject, node: KubeObject, now: Date): void {
  const status = obj(machine.status);
  status.nodeRef = { kind: "Node", name: node.metadata.name, uid: node.metadata.uid };
  status.phase = "Running";
  status.lastUpdated = timestamp(now);
  machine.status = status;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/**
 * What the machine-api's nodelink controller writes on a Machine's Node (machine-api-operator
 * pkg/controller/nodelink/nodelink_controller.go): `ReconcileNodeLink.Reconcile` sets each label of
 * the Machine's `spec.metadata.labels` on the Node, value included, and `addTaintsToNode` appends each
 * of its `spec.taints` whose key and effect no taint of the Node has. It never removes a label or a
 * taint and never changes a taint's value. True when the Node changed.
 */
export function copyMachineMetadata(node: KubeObject, machine: KubeObject): boolean {
  const before = JSON.stringify([node.metadata.labels, field(node, "spec", "taints")]);
  const labels = field<Record<string, string>>(machine, "spec", "metadata", "labels") ?? {};
  node.metadata.labels = { ...(node.metadata.labels ?? {}), ...labels };
  const taints = [...(field<Taint[]>(node, "spec", "taints") ?? [])];
  for (const taint of field<Taint[]>(machine, "spec", "taints") ?? []) {
    if (!taints.some((t) => t.key === taint.key && t.effect === taint.effect))
      taints.push(structuredClone(taint));
  }
  if (taints.length > 0) node.spec = { ...obj(node.spec), taints };
  return JSON.stringify([node.metadata.labels, field(node, "spec", "taints")]) !== before;
}
