/**
 * `npm run render -- <example> --baseline <dir>`: the rollout impact of the head rendering against an
 * earlier one (e.g. the base branch of a pull request), per pool, as ROLLOUT.md beside the manifests.
 * Only the node configuration the program declares is compared; the cluster's own MachineConfigs are
 * the same on both sides.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { ROLE_LABEL } from "../primitives/openshift";
import {
  impactMarkdown,
  ObjectLike,
  poolConfigsFrom,
  poolLabel,
  PoolImpact,
  rolloutImpact,
} from "../builders/rollout-impact";

type Manifest = Record<string, unknown> & ObjectLike;

/** What the installer gives a cluster's compute pool when nothing else says how many nodes a pool has. */
export const ASSUMED_MACHINES = 3;

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

export interface BaselineImpact {
  impacts: PoolImpact[];
  /** Assumptions and pool creations, one sentence each. */
  notes: string[];
}

/**
 * The impact per pool of going from `base` to `head`. A pool's machine count comes from `machines`, else
 * the MachineSets the head declares for it, else ASSUMED_MACHINES (said in a note).
 */
export function baselineImpact(
  base: Manifest[],
  head: Manifest[],
  machines: Record<string, number> = {},
): BaselineImpact {
  const pools = new Set<string>();
  for (const ms of [base, head]) {
    for (const p of ofKind(ms, "MachineConfigPool")) pools.add(nameOf(p));
    for (const mc of ofKind(ms, "MachineConfig")) pools.add(mc.metadata?.labels?.[ROLE_LABEL] ?? "worker");
    for (const c of [...ofKind(ms, "KubeletConfig"), ...ofKind(ms, "ContainerRuntimeConfig")]) {
      const match = (c.spec?.machineConfigPoolSelector as { matchLabels?: Record<string, string> })
        ?.matchLabels;
      for (const k of Object.keys(match ?? {}))
        if (k.startsWith(poolLabel(""))) pools.add(k.slice(poolLabel("").length));
    }
  }
  const notes: string[] = [];
  const impacts = [...pools].sort().map((pool) => {
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
    return rolloutImpact({
      pool,
      before: isNew ? poolConfigsFrom(pool, head, after) : poolConfigsFrom(pool, base, before),
      after: poolConfigsFrom(pool, head, after),
      machineCount: known ?? ASSUMED_MACHINES,
      maxUnavailable: after?.spec?.maxUnavailable as number | string | undefined,
      paused: after?.spec?.paused === true,
    });
  });
  return { impacts, notes };
}

/** ROLLOUT.md: a title, the table and rules, and the notes. */
export function rolloutReport(project: string, impact: BaselineImpact): string {
  const notes = impact.notes.length ? `\n${impact.notes.map((n) => `- ${n}`).join("\n")}\n` : "";
  return `## Node rollout of ${project}\n\n${impactMarkdown(impact.impacts)}${notes}`;
}
