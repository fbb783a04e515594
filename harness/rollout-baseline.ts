/**
 * `npm run render -- <example> --baseline <dir>`: what the head rendering does to each pool's nodes
 * against an earlier one (e.g. the base branch of a pull request), one row per pool as the preview
 * says it in one line (builders/rollout-impact/summary.ts), as ROLLOUT.md beside the manifests: the
 * render of the node configuration the program declares (the cluster's own MachineConfigs are the
 * same on both sides), the machines whose MachineSet template's provider spec changes, kept or
 * replaced as the pool's waiter says (`machineReplacement`, in the head's `_waiters.yaml`), or whose
 * machine labels change, and the node labels and taints the running nodes get and lose (when the
 * head's NodeLabelsAndTaints waiter writes them).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { ROLE_LABEL } from "../primitives/openshift";
import {
  ObjectLike,
  poolConfigsFrom,
  poolLabel,
  PoolSummary,
  rolloutImpact,
  summaryMarkdown,
} from "../builders/rollout-impact";
import {
  machineSetChange,
  MachineReplacementPolicy,
  MachineSetChange,
  MachineTemplate,
  nodeMetadataImpact,
  nodeMetadataPhrase,
} from "../builders/machineset";
import type { Taint } from "../builders/validation";
import { MACHINE_API_NAMESPACE } from "../primitives/openshift";
import type { KubeObject } from "../primitives/objects";
import { planMachine } from "../provider/waiting/node-metadata";

type Manifest = Record<string, unknown> & ObjectLike;

/** What the installer gives a cluster's compute pool when nothing else says how many nodes a pool has. */
export const ASSUMED_MACHINES = 3;

/** A waiter as `_waiters.yaml` lists it. */
export interface WaiterLike {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/** The manifests of a render output directory (every YAML file but the waiter list). */
export function readRendering(dir: string): Manifest[] {
  if (!fs.existsSync(dir)) throw new Error(`--baseline ${dir}: no such directory (render the base first)`);
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".yaml") && e.name !== "_waiters.yaml")
    .map((e) => path.join(e.parentPath, e.name))
    .sort()
    .map((f) => parse(fs.readFileSync(f, "utf8")) as Manifest);
}

const ofKind = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);
const nameOf = (m: Manifest) => m.metadata?.name ?? "";

/**
 * The pool a MachineSet's nodes join as the MCO assigns them: a custom role wins over worker, master over
 * both; Windows machines belong to no pool.
 */
function poolOfMachineSet(m: Manifest): string | undefined {
  const template = (
    m.spec as {
      template?: {
        metadata?: { labels?: Record<string, string> };
        spec?: { metadata?: { labels?: Record<string, string> } };
      };
    }
  )?.template;
  if (template?.metadata?.labels?.["machine.openshift.io/os-id"] === "Windows") return undefined;
  const roles = Object.keys(template?.spec?.metadata?.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice("node-role.kubernetes.io/".length));
  if (roles.includes("master")) return "master";
  return roles.find((r) => r !== "worker") ?? (roles.includes("worker") ? "worker" : undefined);
}

/** Replicas of the MachineSets whose nodes join the pool, or undefined when the program declares none. */
function machinesOf(pool: string, ms: Manifest[]): number | undefined {
  const sets = ofKind(ms, "MachineSet").filter((m) => poolOfMachineSet(m) === pool);
  return sets.length ? sets.reduce((n, m) => n + Number(m.spec?.replicas ?? 0), 0) : undefined;
}

/** A MachineSet's template: what the machine-api copies into each Machine it creates. */
interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    metadata?: { labels?: Record<string, string> };
    taints?: Taint[];
    providerSpec?: { value?: Record<string, unknown> };
  };
}

const templateOf = (m: Manifest): Template => (m.spec as { template?: Template } | undefined)?.template ?? {};

/** What a MachineSet's template gives each Machine: its provider spec and its own labels. */
const machineTemplateOf = (m: Manifest): MachineTemplate => ({
  providerSpec: templateOf(m).spec?.providerSpec?.value ?? {},
  labels: templateOf(m).metadata?.labels ?? {},
});

/** The head's MachineSets of the pool that the base has too, each after the base's. */
function keptMachineSets(pool: string, base: Manifest[], head: Manifest[]): Array<[Manifest, Manifest]> {
  return ofKind(head, "MachineSet")
    .filter((m) => poolOfMachineSet(m) === pool)
    .flatMap((m): Array<[Manifest, Manifest]> => {
      const before = ofKind(base, "MachineSet").find((b) => nameOf(b) === nameOf(m));
      return before ? [[before, m]] : [];
    });
}

/** The head's waiter of `type` that names the MachineSet in its `machineSets`. */
const waiterOf = (waiters: WaiterLike[], type: string, machineSet: string) =>
  waiters.find(
    (w) => w.type === type && ((w.inputs.machineSets as string[] | undefined) ?? []).includes(machineSet),
  );

/**
 * The pool's MachineSets whose template's provider spec or machine labels the head changes: the base's
 * replicas run the base's template, and the head's pool waiter replaces them when it has
 * `machineReplacement`.
 */
function machineSetChanges(pool: string, base: Manifest[], head: Manifest[], waiters: WaiterLike[]) {
  return keptMachineSets(pool, base, head).flatMap(([before, m]): MachineSetChange[] => {
    const running = Array.from({ length: Number(before.spec?.replicas ?? 0) }, () =>
      machineTemplateOf(before),
    );
    const policy = waiterOf(waiters, "PoolRollout", nameOf(m))?.inputs.machineReplacement as
      MachineReplacementPolicy | undefined;
    const change = machineSetChange(nameOf(m), machineTemplateOf(m), running, policy);
    return change ? [change] : [];
  });
}

/**
 * What the pool's running nodes get and lose of the head's node labels and taints, as its
 * NodeLabelsAndTaints waiter plans it (provider/waiting/node-metadata.ts `planMachine`): the base's
 * replicas run Machines and Nodes with the base template's labels, taints and their record. Nothing
 * without that waiter in the head (`wait: false`): only machines created later get them then.
 */
function nodeMetadataChanges(pool: string, base: Manifest[], head: Manifest[], waiters: WaiterLike[]) {
  const changes = keptMachineSets(pool, base, head).flatMap(([before, m]) => {
    if (!waiterOf(waiters, "NodeLabelsAndTaints", nameOf(m))) return [];
    const was = templateOf(before);
    const now = templateOf(m);
    const labels = was.spec?.metadata?.labels ?? {};
    const taints = was.spec?.taints ?? [];
    const machine: KubeObject = {
      metadata: { name: nameOf(m), annotations: was.metadata?.annotations ?? {} },
      spec: { metadata: { labels }, taints },
    };
    const node: KubeObject = { metadata: { name: nameOf(m), labels }, spec: { taints } };
    const target = {
      namespace: MACHINE_API_NAMESPACE,
      machineSets: [nameOf(m)],
      labels: now.spec?.metadata?.labels ?? {},
      taints: now.spec?.taints ?? [],
    };
    const { change } = planMachine(target, machine, node);
    return Array.from({ length: Number(before.spec?.replicas ?? 0) }, () => change);
  });
  const impact = nodeMetadataImpact(pool, changes);
  return impact ? [nodeMetadataPhrase(impact)] : [];
}

export interface BaselineImpact {
  summaries: PoolSummary[];
  /** Assumptions and pool creations, one sentence each. */
  notes: string[];
}

/**
 * The summary per pool of going from `base` to `head` (`waiters`: the head's). A pool's machine count
 * comes from `machines`, else the MachineSets the head declares for it, else ASSUMED_MACHINES (said in a
 * note).
 */
export function baselineImpact(
  base: Manifest[],
  head: Manifest[],
  machines: Record<string, number> = {},
  waiters: WaiterLike[] = [],
): BaselineImpact {
  const pools = new Set<string>();
  for (const ms of [base, head]) {
    for (const p of ofKind(ms, "MachineConfigPool")) pools.add(nameOf(p));
    for (const mc of ofKind(ms, "MachineConfig")) pools.add(mc.metadata?.labels?.[ROLE_LABEL] ?? "worker");
    for (const set of ofKind(ms, "MachineSet")) {
      const pool = poolOfMachineSet(set);
      if (pool) pools.add(pool);
    }
    for (const c of [...ofKind(ms, "KubeletConfig"), ...ofKind(ms, "ContainerRuntimeConfig")]) {
      const match = (c.spec?.machineConfigPoolSelector as { matchLabels?: Record<string, string> })
        ?.matchLabels;
      for (const k of Object.keys(match ?? {}))
        if (k.startsWith(poolLabel(""))) pools.add(k.slice(poolLabel("").length));
    }
  }
  const notes: string[] = [];
  const summaries = [...pools].sort().map((pool): PoolSummary => {
    const find = (ms: Manifest[]) => ofKind(ms, "MachineConfigPool").find((p) => nameOf(p) === pool);
    const before = find(base);
    const after = find(head) ?? before;
    const known = machines[pool] ?? machinesOf(pool, head);
    if (known === undefined)
      notes.push(
        `pool ${pool}: ${ASSUMED_MACHINES} nodes assumed (no MachineSet of the program names it; give --machines ${pool}=N)`,
      );
    const isNew = before === undefined && find(head) !== undefined && pool !== "worker" && pool !== "master";
    if (isNew)
      notes.push(`pool ${pool}: new pool, its nodes boot with its first rendered config: no rollout`);
    const render = rolloutImpact({
      pool,
      before: isNew ? poolConfigsFrom(pool, head, after) : poolConfigsFrom(pool, base, before),
      after: poolConfigsFrom(pool, head, after),
      machineCount: known ?? ASSUMED_MACHINES,
      maxUnavailable: after?.spec?.maxUnavailable as number | string | undefined,
      paused: after?.spec?.paused === true,
    });
    return {
      pool,
      render,
      machineSets: machineSetChanges(pool, base, head, waiters),
      nodeMetadata: nodeMetadataChanges(pool, base, head, waiters),
    };
  });
  return { summaries, notes };
}

/** ROLLOUT.md: a title, the table and rules, and the notes. */
export function rolloutReport(project: string, impact: BaselineImpact): string {
  const notes = impact.notes.length ? `\n${impact.notes.map((n) => `- ${n}`).join("\n")}\n` : "";
  return `## Node rollout of ${project}\n\n${summaryMarkdown(impact.summaries)}${notes}`;
}
