/**
 * `npm run bench:eval`: how long the mock runtime takes to evaluate synthetic topologies of 5, 20 and
 * 50 infra pools x 3 zones (each with a MachineConfig and every waiter), and the peak memory of doing
 * so, each size in fresh processes (the median of three) so one size's heap does not inflate the next.
 * Measured with the library from this repository's sources (as the examples and tests use it), built
 * and laid out as an installed dependency (as users get it from npm), where each waiter carries a
 * provider that requires the package instead of one serialized by value, and installed with
 * `wait: false` (the components without their waiters). Then the demo's deployment time against the
 * simulator's critical path for its topology (see harness/critical-path.ts).
 * The same topology written as raw @pulumi/kubernetes objects (bench/eval-raw, what a user writes
 * instead) is evaluated the same way, and the library's cost is printed as a ratio to it.
 * Both are also previewed through the harness's engine at 5 and 50 pools, as a user runs `pulumi preview`,
 * with the resources each registers per pool: the SDK charges a registration the same whether it is an
 * object or a waiter, so the preview's time follows their number.
 * Goals: installed, the engine's preview within 1.8x of raw at 5 and 50 pools and a registration
 * costing at most 1.1x one of raw; under the mock runtime 50 pools under 3 s and 400 MB and growth no
 * worse than linear; demo ratio <= 1.1.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { criticalPathMs, DEMO_TOPOLOGY } from "../harness/critical-path";
import { copyProgram, installedDir, installPackage } from "../harness/installed";

const SIZES = [5, 20, 50];
const ROOT = path.resolve(__dirname, "..");
const SOURCES = "sources";

interface Sample {
  pools: number;
  manifests: number;
  waiters: number;
  loadMs: number;
  evalMs: number;
  /** CPU time of the evaluation (less sensitive than its wall time to other work on the machine). */
  evalCpuMs: number;
  peakRssMb: number;
  /** Size of the largest serialized provider a waiter resource carries in `__provider`. */
  providerKb: number;
}

const RAW = "raw";
/** The library program with `wait: false`: the components and what they declare, no waiter. */
const NO_WAIT = "--no-wait";
const INSTALLED_NO_WAIT = "no waits";

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/**
 * Evaluates the synthetic program with `pools` pools: `layout` is the installed layout's program
 * directory, `raw` for the same topology written as raw @pulumi/kubernetes objects, or absent.
 */
async function child(pools: number, layout: string | undefined): Promise<void> {
  if (layout === RAW) return rawChild(pools);
  const programDir = layout;
  const loadStarted = performance.now();
  const { loadProject } = require("../harness/project") as typeof import("../harness/project");
  const { render } = require("../harness/render") as typeof import("../harness/render");
  const { noFixtures } = require("../harness/fixtures") as typeof import("../harness/fixtures");
  const loadMs = performance.now() - loadStarted;
  const config = [`pools=${pools}`, ...(process.argv.includes(NO_WAIT) ? ["wait=false"] : [])];
  const project = loadProject(programDir ?? path.join(__dirname, "eval-program"), "dev", config);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const rendering = await render(project, noFixtures("bench/eval-program/fixtures.yaml"));
  const evalMs = performance.now() - started;
  const evalCpuMs = cpuMs(process.cpuUsage(cpu));
  if (rendering.errors.length > 0) throw new Error(rendering.errors.join("\n"));
  const sample: Sample = {
    pools,
    manifests: rendering.manifests.length,
    waiters: rendering.waiters.length,
    loadMs,
    evalMs,
    evalCpuMs,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    providerKb: Math.max(...rendering.waiters.map((w) => w.providerSize)) / 1024,
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}

/** The raw program's evaluation: what a user writing the objects by hand pays (no library, no waiters). */
async function rawChild(pools: number): Promise<void> {
  const loadStarted = performance.now();
  const { loadProject } = require("../harness/project") as typeof import("../harness/project");
  const { render } = require("../harness/render") as typeof import("../harness/render");
  const { noFixtures } = require("../harness/fixtures") as typeof import("../harness/fixtures");
  const loadMs = performance.now() - loadStarted;
  const project = loadProject(path.join(__dirname, "eval-raw"), "dev", [`pools=${pools}`]);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const rendering = await render(project, noFixtures("bench/eval-raw/fixtures.yaml"));
  const evalMs = performance.now() - started;
  const evalCpuMs = cpuMs(process.cpuUsage(cpu));
  if (rendering.errors.length > 0) throw new Error(rendering.errors.join("\n"));
  const sample: Sample = {
    pools,
    manifests: rendering.manifests.length,
    waiters: 0,
    loadMs,
    evalMs,
    evalCpuMs,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    providerKb: 0,
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}

/** Sizes previewed through the engine: the two the ratio goal names. */
const ENGINE_SIZES = [5, 50];

/**
 * The same program previewed through the harness's engine (`pulumi preview`: the program in the SDK's
 * language entry point, the waiters checked by the dynamic-provider host over gRPC): what a user waits
 * for, process starts included. Facts and image are given; what a preview reads (each pool's rollout
 * impact) comes from an in-process simulator.
 */
async function engineChild(pools: number, program: string, config: string[]): Promise<void> {
  const { preview } = require("../harness/deploy") as typeof import("../harness/deploy");
  const { loadProject } = require("../harness/project") as typeof import("../harness/project");
  const { noFixtures } = require("../harness/fixtures") as typeof import("../harness/fixtures");
  const { startSimulator } = require("../simulator/simulator") as typeof import("../simulator/simulator");
  // A preview reads each pool's rollout impact from the cluster, as it would from the user's.
  process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
  const sim = await startSimulator({});
  const result = await preview({
    project: loadProject(path.resolve(__dirname, program), "dev", [`pools=${pools}`, ...config]),
    kubeconfigPath: sim.kubeconfigPath,
    fixtures: noFixtures(`${path.basename(program)}/fixtures.yaml`),
  });
  await sim.stop();
  if (!result.ok) throw new Error(result.errors.join("\n"));
  process.stdout.write(
    `${JSON.stringify({ pools, resources: result.counts.create, ms: result.durationMs })}\n`,
  );
}

/**
 * The library compiled and laid out under `.bench/` as `node_modules/<name>` next to a copy of the
 * synthetic program that imports it by name (harness/installed.ts): as a user's project holds it.
 * Returns the program's directory.
 */
function installedLayout(): string {
  const dir = installedDir("installed");
  installPackage(dir);
  copyProgram(path.join(__dirname, "eval-program"), path.join(dir, "program"), ["Pulumi.yaml", "index.ts"]);
  return path.join(dir, "program");
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 180_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${args.join(" ")} failed: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

/** Runs per size; the sample with the median evaluation time is kept (runs vary by 15% on a shared machine). */
const RUNS = 3;

async function measure(programDir: string | undefined, ...flags: string[]): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (const pools of SIZES) {
    const runs: Sample[] = [];
    for (let i = 0; i < RUNS; i++) {
      const out = await run([
        __filename,
        "--child",
        String(pools),
        ...(programDir ? [programDir] : []),
        ...flags,
      ]);
      runs.push(JSON.parse(out.trim().split("\n").pop()!) as Sample);
    }
    samples.push(runs.sort((a, b) => a.evalMs - b.evalMs)[Math.floor(RUNS / 2)]);
  }
  return samples;
}

async function main(): Promise<number> {
  const installed = installedLayout();
  const layouts: Array<[string, Sample[]]> = [
    [SOURCES, await measure(undefined)],
    ["installed", await measure(installed)],
    [INSTALLED_NO_WAIT, await measure(installed, NO_WAIT)],
    [RAW, await measure(RAW)],
  ];
  console.log(
    `evaluation under the mock runtime (median of ${RUNS} fresh processes per size; load = the harness, eval = the program with the modules it imports; "${INSTALLED_NO_WAIT}" = installed, wait: false)`,
  );
  console.log(
    "library    pools  zones  manifests  waiters  load ms  eval ms  eval ms/pool  peak RSS MB  provider KB",
  );
  const goals: Array<readonly [string, boolean]> = [];
  for (const [layout, samples] of layouts) {
    for (const s of samples) {
      console.log(
        `${layout.padEnd(9)}  ${String(s.pools).padStart(5)}  ${"3".padStart(5)}  ${String(s.manifests).padStart(9)}  ${String(s.waiters).padStart(7)}  ${s.loadMs.toFixed(0).padStart(7)}  ${s.evalMs.toFixed(0).padStart(7)}  ${(s.evalMs / s.pools).toFixed(1).padStart(12)}  ${s.peakRssMb.toFixed(0).padStart(11)}  ${s.providerKb.toFixed(0).padStart(11)}`,
      );
    }
    if (layout === RAW || layout === INSTALLED_NO_WAIT) continue;
    const small = samples[0];
    const large = samples[samples.length - 1];
    // Linear growth means a constant cost per pool on top of a fixed one (serializing each provider
    // once, the SDK's own setup): per-pool time must not rise with the size.
    const growth = large.evalMs / large.pools / (small.evalMs / small.pools);
    const marginal = (large.evalMs - small.evalMs) / (large.pools - small.pools);
    console.log(
      `${"".padEnd(9)}  fit: ${(small.evalMs - marginal * small.pools).toFixed(0)} ms fixed + ${marginal.toFixed(1)} ms per pool`,
    );
    goals.push(
      [
        `${layout}: 50 pools evaluated in ${(large.evalMs / 1000).toFixed(2)} s (goal < 3 s)`,
        large.evalMs < 3000,
      ],
      [
        `${layout}: 50 pools peak RSS ${large.peakRssMb.toFixed(0)} MB (goal < 400 MB)`,
        large.peakRssMb < 400,
      ],
      [
        `${layout}: time per pool at 50 / at 5: ${growth.toFixed(2)} (goal <= 1: no worse than linear)`,
        growth <= 1,
      ],
    );
  }

  // The same topology written by hand, through the same harness: what the library costs on top.
  const raw = layouts.find(([layout]) => layout === RAW)![1];
  for (const [layout, samples] of layouts.filter(([l]) => l !== RAW)) {
    for (const [i, s] of samples.entries()) {
      const ratio = s.evalMs / raw[i].evalMs;
      console.log(
        `${layout.padEnd(9)}  ${String(s.pools).padStart(5)} pools: library ${s.evalMs.toFixed(0)} ms / raw ${raw[i].evalMs.toFixed(0)} ms = ${ratio.toFixed(2)}x (${s.manifests + s.waiters} resources against ${raw[i].manifests})`,
      );
    }
  }

  console.log("");
  console.log(
    `preview through the engine (program and dynamic-provider host processes, gRPC; median of ${RUNS} runs)`,
  );
  console.log(
    "library    pools  library ms  raw ms  ratio  registrations per pool (library / raw)  ms per registration (library / raw)  cost ratio",
  );
  const median = async (pools: number, program: string, ...config: string[]) => {
    const runs: Array<{ resources: number; ms: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      const out = await run([__filename, "--engine-child", String(pools), program, ...config]);
      runs.push(JSON.parse(out.trim().split("\n").pop()!));
    }
    return runs.sort((a, b) => a.ms - b.ms)[Math.floor(RUNS / 2)];
  };
  const installedAt = new Map<number, { resources: number; ms: number }>();
  const rawAt = new Map<number, { resources: number; ms: number }>();
  for (const pools of ENGINE_SIZES) {
    const raw = await median(pools, "eval-raw");
    rawAt.set(pools, raw);
    // Installed is what a user's `pulumi preview` runs; from sources is how the examples run.
    for (const [layout, program] of [
      ["installed", installed],
      [SOURCES, "eval-program"],
    ]) {
      const library = await median(pools, program);
      if (layout === "installed") installedAt.set(pools, library);
      const ratio = library.ms / raw.ms;
      const perRegistration = { library: library.ms / library.resources, raw: raw.ms / raw.resources };
      const cost = perRegistration.library / perRegistration.raw;
      const perPool = `${(library.resources / pools).toFixed(1)} / ${(raw.resources / pools).toFixed(1)}`;
      const ms = `${perRegistration.library.toFixed(1)} / ${perRegistration.raw.toFixed(1)}`;
      console.log(
        `${layout.padEnd(9)}  ${String(pools).padStart(5)}  ${library.ms.toFixed(0).padStart(10)}  ${raw.ms.toFixed(0).padStart(6)}  ${ratio.toFixed(2).padStart(5)}  ${perPool.padStart(39)}  ${ms.padStart(35)}  ${cost.toFixed(2).padStart(10)}`,
      );
      // The goals are what a user's `pulumi preview` pays, with the library installed; from sources
      // (ts-node transpiling the library, as the examples run) is shown beside it.
      if (layout !== "installed") continue;
      goals.push(
        [`engine: ${pools} pools previewed at ${ratio.toFixed(2)}x raw (goal <= 1.8x)`, ratio <= 1.8],
        [
          `engine: ${pools} pools, a registration costs ${cost.toFixed(2)}x one of raw (goal <= 1.1x)`,
          cost <= 1.1,
        ],
      );
    }
  }

  // The first pool also moving the router, registry and monitoring (#24): each patch registers a
  // PatchRelease beside it, which restores the operator's object when the patch goes.
  {
    const placing = { pools: ENGINE_SIZES[0], config: "placement=true" };
    const raw = await median(placing.pools, "eval-raw", placing.config);
    const library = await median(placing.pools, installed, placing.config);
    const without = { library: installedAt.get(placing.pools)!, raw: rawAt.get(placing.pools)! };
    const ratio = library.ms / raw.ms;
    const cost = library.ms / library.resources / (raw.ms / raw.resources);
    console.log(
      `${"placing".padEnd(9)}  ${String(placing.pools).padStart(5)}  ${library.ms.toFixed(0).padStart(10)}  ${raw.ms.toFixed(0).padStart(6)}  ${ratio.toFixed(2).padStart(5)}  ${`${library.resources} / ${raw.resources} in all`.padStart(39)}  ${`${(library.ms / library.resources).toFixed(1)} / ${(raw.ms / raw.resources).toFixed(1)}`.padStart(35)}  ${cost.toFixed(2).padStart(10)}`,
    );
    console.log(
      `           placing registers ${library.resources - without.library.resources} more resources (the patches and a PatchRelease each), raw ${raw.resources - without.raw.resources} (the patches)`,
    );
  }

  console.log("");
  console.log("demo: deployment time against the simulator's critical path (npm run demo, plain output)");
  const demo = await run([path.join(ROOT, "harness", "demo.ts")], { CI: "1" });
  // The demo prints each revision's "deployed in Xs" and, first, the simulator's speed.
  const speed = Number(/speed (\d+(?:\.\d+)?)/.exec(demo)?.[1]);
  const deployed = [...demo.matchAll(/deployed in ([\d.]+)s/g)].map((m) => Number(m[1]) * 1000);
  const total = deployed.reduce((sum, ms) => sum + ms, 0);
  const critical =
    criticalPathMs("create", DEMO_TOPOLOGY, speed) +
    criticalPathMs("machineConfigChange", DEMO_TOPOLOGY, speed);
  const ratio = deployed.length === 2 ? total / critical : NaN;
  console.log(
    `  deployments ${(total / 1000).toFixed(1)}s, simulator critical path ${(critical / 1000).toFixed(1)}s (ratio ${ratio.toFixed(2)})`,
  );
  const all = [...goals, [`demo ratio ${ratio.toFixed(2)} (goal <= 1.1)`, ratio <= 1.1] as const];
  console.log("");
  for (const [text, met] of all) console.log(`${met ? "MET    " : "MISSED "} ${text}`);
  return 0;
}

if (process.argv[2] === "--engine-child") {
  engineChild(Number(process.argv[3]), process.argv[4], process.argv.slice(5)).then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error.stack ?? error.message);
      process.exit(1);
    },
  );
} else if (process.argv[2] === "--child") {
  child(Number(process.argv[3]), process.argv[4]).then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error.stack ?? error.message);
      process.exit(1);
    },
  );
} else {
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
