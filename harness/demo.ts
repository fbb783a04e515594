/**
 * `npm run demo`: the root example deployed to a local simulated OpenShift cluster by the deploy
 * harness, with live progress, a summary of nodes and pools, then a second revision (a changed
 * MachineConfig) and its rollout. Exits non-zero on any failure; the simulator is stopped either way.
 * The example runs as a user's project holds it, with the library compiled and installed beside it
 * (harness/installed.ts), not transpiled from this repository's sources at every program run.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ProgressEvent } from "../provider/waiting";
import { findCrdDir } from "../simulator/schema";
import { startSimulator, Simulator } from "../simulator/simulator";
import { deploy, DeployEvent, DeployResult, preview } from "./deploy";
import { planLines, poolLines } from "./display";
import type { Diagnostic } from "./engine/diagnostics";
import { installedRootProject } from "./installed";
import { progressFile } from "./progress";
import { loadProject } from "./project";
import { render } from "./render";
import { ProgressView, table } from "./view";

/** Fast enough for a minute's demo, slow enough to watch nodes roll (speed 2: a reboot takes 2 s). */
const SPEED = Number(process.env.DEMO_SPEED ?? 2);
/** The second revision: what `pulumi config set timeServer time.aws.com` would change. */
const REVISION_2 = ["timeServer=time.aws.com"];
const DEADLINE_MS = 120_000;

interface KubeLike {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const MACHINE_SET = "kubernetes:machine.openshift.io/v1beta1:MachineSet";

/** `pool infra: 2/3 updated -> x` -> `2/3 updated -> x`: the row label already says whose. */
function detail(message: string): string {
  const at = message.indexOf(": ");
  return at > 0 ? message.slice(at + 2) : message;
}

function waiterRow(waiter: string): { key: string; label: string } | undefined {
  if (waiter.startsWith("pool ")) return { key: waiter, label: waiter };
  if (waiter.startsWith("operator ")) return { key: waiter, label: `operator ${waiter.split("/").pop()}` };
  if (waiter.startsWith("Windows nodes")) return { key: waiter, label: "windows nodes" };
  if (waiter.startsWith("deletion of MachineSets")) return { key: waiter, label: "machineset removal" };
  // A pool's MachineSets get a bar each from the cluster instead.
  return undefined;
}

async function revision(
  projectDir: string,
  sim: Simulator,
  view: ProgressView,
  title: string,
  overrides: string[],
  statePath: string,
): Promise<DeployResult> {
  view.log(title);
  const machineSets = new Set<string>();
  const onEvent = (e: DeployEvent) => {
    if (e.phase === "failed") view.log(`✗ ${e.message}`);
    if (e.phase === "done" && e.type === MACHINE_SET && e.id) machineSets.add(e.id);
  };
  // The waiters run in the dynamic-provider host; they report progress through a file.
  const progress = progressFile(path.dirname(statePath));
  const onProgress = (e: ProgressEvent) => {
    const row = waiterRow(e.waiter);
    if (row)
      view.update(row.key, {
        label: row.label,
        done: e.done,
        total: e.total,
        state: e.state,
        message: detail(e.message),
      });
  };
  const options = {
    project: loadProject(projectDir, "dev", overrides),
    kubeconfigPath: sim.kubeconfigPath,
    statePath,
    env: progress.env,
  };
  const said: Diagnostic[] = [];
  const planned = await preview({ ...options, onDiagnostic: (d) => said.push(d) });
  if (!planned.ok) return planned;
  view.log("preview (pulumi preview):");
  for (const line of planLines(planned.plan)) view.log(line);
  // The library's point: what the change does to each pool's nodes, known before up.
  for (const line of poolLines(said)) view.log(`  ${line}`);
  const infraId = sim.cluster.infrastructureId;
  const poll = () => {
    for (const event of progress.read()) onProgress(event);
    for (const id of machineSets) {
      const [namespace, name] = id.split("/");
      const ms = sim.store.get({
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineSet",
        namespace,
        name,
      }) as KubeLike | undefined;
      if (!ms) continue;
      const want = Number(ms.spec?.replicas ?? 0);
      const ready = Number(ms.status?.readyReplicas ?? 0);
      view.update(`machineset ${id}`, {
        label: `machineset ${name.replace(`${infraId}-`, "")}`,
        done: ready,
        total: want,
        state: ready === want ? "done" : "waiting",
        message: `${ready} ready, ${Number(ms.status?.availableReplicas ?? 0)} available of ${want}`,
      });
    }
  };
  const timer = setInterval(poll, 200);
  try {
    return await deploy({ ...options, onEvent });
  } finally {
    clearInterval(timer);
    // What happened since the last poll (the last waiters finishing, the last machines Ready) is drawn
    // before the bars are: a deployment that converged ends at 100%.
    poll();
    view.finish();
  }
}

/** The nodes and pools as `oc get nodes` and `oc get mcp` show them: a header, columns aligned. */
function summary(sim: Simulator): string[] {
  const byName = (a: KubeLike, b: KubeLike) => a.metadata.name.localeCompare(b.metadata.name);
  const nodes = (sim.store.list("v1", "Node") as unknown as KubeLike[]).sort(byName).map((node) => {
    const labels = node.metadata.labels ?? {};
    const roles = Object.keys(labels)
      .filter((l) => l.startsWith("node-role.kubernetes.io/"))
      .map((l) => l.slice("node-role.kubernetes.io/".length))
      .sort();
    const ready = ((node.status?.conditions ?? []) as Array<{ type: string; status: string }>).some(
      (c) => c.type === "Ready" && c.status === "True",
    );
    return [
      node.metadata.name,
      ready ? "Ready" : "NotReady",
      roles.join(","),
      labels["kubernetes.io/os"] ?? "linux",
    ];
  });
  const pools = (
    sim.store.list("machineconfiguration.openshift.io/v1", "MachineConfigPool") as unknown as KubeLike[]
  )
    .sort(byName)
    .map((pool) => {
      const s = pool.status ?? {};
      const count = (key: string) => String(s[key] ?? 0);
      return [
        pool.metadata.name,
        (s.configuration as { name?: string } | undefined)?.name ?? "(none)",
        count("machineCount"),
        count("updatedMachineCount"),
        count("readyMachineCount"),
        count("degradedMachineCount"),
      ];
    });
  return [
    ...table(["NAME", "STATUS", "ROLES", "OS"], nodes),
    "",
    ...table(["NAME", "CONFIG", "MACHINES", "UPDATED", "READY", "DEGRADED"], pools),
  ];
}

async function main(): Promise<number> {
  const started = Date.now();
  const view = new ProgressView();
  // The waiters' own log lines would break the bars; the bars show the same progress.
  process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
  const crds = findCrdDir() ?? false;
  view.log(
    `starting the OpenShift simulator (AWS, speed ${SPEED}, CRDs ${crds || "not found: unvalidated"})`,
  );
  // As `pulumi up` previews first, the program is rendered (no cluster) while the simulator starts: an
  // input error shows before anything is deployed, and module loading is not counted as deployment.
  const simulator = startSimulator({ platform: "aws", speed: SPEED, crdDir: crds });
  const projectDir = installedRootProject("demo");
  const [sim, preview] = await Promise.all([simulator, render(loadProject(projectDir, "dev"))]);
  if (preview.errors.length > 0) {
    for (const error of preview.errors) view.log(`✗ ${error}`);
    await sim.stop();
    return 1;
  }
  view.log(`preview: ${preview.manifests.length} manifests, ${preview.waiters.length} waiters`);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "openshift-topology-demo-"));
  const deadline = setTimeout(() => {
    view.log(`✗ the demo did not finish within ${DEADLINE_MS / 1000}s`);
    void sim.stop().finally(() => process.exit(1));
  }, DEADLINE_MS);
  try {
    view.log(`cluster ${sim.cluster.infrastructureId} (${sim.cluster.region}) at ${sim.server}`);
    const statePath = path.join(stateDir, "state.json");
    const steps = [
      { title: "revision 1: infra pool, MachineConfig, KubeletConfig, Windows pool", overrides: [] },
      {
        title: `revision 2: ${REVISION_2.join(" ")} (a changed MachineConfig rolls over the infra pool)`,
        overrides: REVISION_2,
      },
    ];
    for (const step of steps) {
      const result: DeployResult = await revision(
        projectDir,
        sim,
        view,
        step.title,
        step.overrides,
        statePath,
      );
      const counts = Object.entries(result.counts)
        .map(([op, n]) => `${n} ${op}`)
        .join(", ");
      if (!result.ok) {
        for (const error of result.errors) view.log(`✗ ${error}`);
        view.log(`deployment failed after ${(result.durationMs / 1000).toFixed(1)}s`);
        return 1;
      }
      view.log(`deployed in ${(result.durationMs / 1000).toFixed(1)}s (${counts})`);
      for (const line of summary(sim)) view.log(line);
    }
    view.log(
      `done in ${((Date.now() - started) / 1000).toFixed(0)}s: both revisions deployed, every pool converged. ` +
        "Your own program: npm run sim, then npm run deploy -- up <project dir>",
    );
    return 0;
  } finally {
    clearTimeout(deadline);
    await sim.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`demo failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
