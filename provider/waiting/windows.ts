/**
 * When the Windows Machines of some MachineSets have become configured Windows nodes: Ready, labelled
 * `kubernetes.io/os=windows`, carrying WMCO's version annotation equal to the desired version WMCO
 * wrote, and schedulable: WMCO cordons a node while it configures it and uncordons it last
 * (nodeconfig.go Configure), so a cordoned node is not configured yet. Without the `cloud-private-key`
 * secret WMCO configures nothing, so its absence is a failure.
 */
import { annotationsOf, field, KubeObject, labelsOf } from "./kinds";
import { isNodeReady, machineFailure, machinesOf, nodeOf } from "./machineset";
import { WaitState } from "./progress";

export const WMCO_VERSION = "windowsmachineconfig.openshift.io/version";
export const WMCO_DESIRED_VERSION = "windowsmachineconfig.openshift.io/desired-version";
export const WMCO_NAMESPACE = "openshift-windows-machine-config-operator";
export const PRIVATE_KEY_SECRET = "cloud-private-key";

export interface WindowsTarget {
  namespace: string;
  machineSets: string[];
  wmcoNamespace: string;
}

export interface WindowsObservation {
  /** undefined while unread, null when absent. */
  privateKeySecret: KubeObject | null | undefined;
  machineSets: KubeObject[];
  machines: KubeObject[];
  nodes: KubeObject[];
}

export interface WindowsResult {
  machineCount: number;
  configuredCount: number;
  nodes: string[];
  version?: string;
}

export interface WindowsEvaluation {
  state: WaitState;
  message: string;
  done?: number;
  total?: number;
  result?: WindowsResult;
  /** Read the private key secret. */
  needSecret?: boolean;
}

/** Configured: Ready, a Windows node, at the version WMCO wants, and uncordoned. */
export function windowsNodeConfigured(node: KubeObject): boolean {
  const a = annotationsOf(node);
  const version = a[WMCO_VERSION];
  return (
    isNodeReady(node) &&
    labelsOf(node)["kubernetes.io/os"] === "windows" &&
    !!version &&
    (a[WMCO_DESIRED_VERSION] === undefined || a[WMCO_DESIRED_VERSION] === version) &&
    field(node, "spec", "unschedulable") !== true
  );
}

/**
 * Whether a node serves workloads: a Windows node once WMCO has configured it, any other once Ready. A
 * Windows machine that replaces another is configured by WMCO as on creation (it reconciles every
 * Provisioned Windows Machine alike, nodeconfig.go Configure), its node Ready and cordoned meanwhile:
 * the old machine goes only after that.
 */
export function nodeServes(node: KubeObject): boolean {
  return labelsOf(node)["kubernetes.io/os"] === "windows" ? windowsNodeConfigured(node) : isNodeReady(node);
}

/** Why a Windows node is not configured yet, in words. */
function notConfigured(node: KubeObject): string {
  const a = annotationsOf(node);
  if (
    a[WMCO_VERSION] &&
    a[WMCO_VERSION] === (a[WMCO_DESIRED_VERSION] ?? a[WMCO_VERSION]) &&
    isNodeReady(node)
  )
    return `node ${node.metadata.name} cordoned until WMCO finishes configuring it`;
  return `node ${node.metadata.name} not configured yet`;
}

export function evaluateWindowsNodes(target: WindowsTarget, obs: WindowsObservation): WindowsEvaluation {
  const label = `Windows nodes of ${target.machineSets.join(", ")}`;
  if (obs.privateKeySecret === undefined)
    return { state: "waiting", message: `${label}: checking secret ${PRIVATE_KEY_SECRET}`, needSecret: true };
  if (obs.privateKeySecret === null) {
    return {
      state: "failed",
      message: `${label}: secret ${PRIVATE_KEY_SECRET} is missing in namespace ${target.wmcoNamespace}; the Windows Machine Config Operator configures no Windows node without it (create it with key private-key.pem holding the RSA private key of the instances)`,
    };
  }
  let desired = 0;
  const configured: string[] = [];
  const versions = new Set<string>();
  const waits: string[] = [];
  for (const name of target.machineSets) {
    const ms = obs.machineSets.find((m) => m.metadata.name === name);
    if (!ms) {
      waits.push(`MachineSet ${name} does not exist yet`);
      continue;
    }
    const replicas = field<number>(ms, "spec", "replicas") ?? 1;
    desired += replicas;
    const machines = machinesOf(name, obs.machines).filter((m) => !m.metadata.deletionTimestamp);
    for (const m of machines) {
      const failure = machineFailure(m);
      if (failure) return { state: "failed", message: `${label}: ${failure}` };
    }
    if (machines.length !== replicas)
      waits.push(`MachineSet ${name}: ${machines.length}/${replicas} machines`);
    for (const m of machines) {
      const node = nodeOf(m, obs.nodes);
      if (node && windowsNodeConfigured(node)) {
        configured.push(node.metadata.name);
        versions.add(annotationsOf(node)[WMCO_VERSION]);
      } else {
        waits.push(node ? notConfigured(node) : `Machine ${m.metadata.name} has no node yet`);
      }
    }
  }
  const result: WindowsResult = {
    machineCount: desired,
    configuredCount: configured.length,
    nodes: configured.sort(),
    version: versions.size === 1 ? [...versions][0] : undefined,
  };
  const summary = `${label}: ${configured.length}/${desired} configured`;
  if (waits.length === 0)
    return { state: "done", message: summary, done: configured.length, total: desired, result };
  return {
    state: "waiting",
    message: `${summary} (${waits[0]})`,
    done: configured.length,
    total: desired,
    result,
  };
}
