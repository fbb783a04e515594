/**
 * `npm run bench:eval`: how long the mock runtime takes to evaluate synthetic topologies of 5, 20 and
 * 50 infra pools x 3 zones (each with a MachineConfig and every waiter), and the peak memory of doing
 * so, each size in a fresh process so one size's heap does not inflate the next. Then the demo's
 * deployment time against the simulator's critical path for its topology (see harness/critical-path.ts).
 * Goals: 50 pools under 3 s and 400 MB, growth no worse than linear, demo ratio <= 1.1.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";

const SIZES = [5, 20, 50];
const ROOT = path.resolve(__dirname, "..");

interface Sample {
  pools: number;
  manifests: number;
  waiters: number;
  loadMs: number;
  evalMs: number;
  peakRssMb: number;
}

async function child(pools: number): Promise<void> {
  const loadStarted = performance.now();
  const { loadProject } = require("../harness/project") as typeof import("../harness/project");
  const { render } = require("../harness/render") as typeof import("../harness/render");
  const { noFixtures } = require("../harness/fixtures") as typeof import("../harness/fixtures");
  require("../index");
  const loadMs = performance.now() - loadStarted;
  const project = loadProject(path.join(__dirname, "eval-program"), "dev", [`pools=${pools}`]);
  const started = performance.now();
  const rendering = await render(project, noFixtures("bench/eval-program/fixtures.yaml"));
  const evalMs = performance.now() - started;
  if (rendering.errors.length > 0) throw new Error(rendering.errors.join("\n"));
  const sample: Sample = {
    pools,
    manifests: rendering.manifests.length,
    waiters: rendering.waiters.length,
    loadMs,
    evalMs,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
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

async function main(): Promise<number> {
  const samples: Sample[] = [];
  for (const pools of SIZES) {
    const out = await run([__filename, "--child", String(pools)]);
    samples.push(JSON.parse(out.trim().split("\n").pop()!) as Sample);
  }
  console.log(
    "evaluation under the mock runtime (fresh process per size; load = library modules, eval = the program)",
  );
  console.log("pools  zones  manifests  waiters  load ms  eval ms  eval ms/pool  peak RSS MB");
  for (const s of samples) {
    console.log(
      `${String(s.pools).padStart(5)}  ${"3".padStart(5)}  ${String(s.manifests).padStart(9)}  ${String(s.waiters).padStart(7)}  ${s.loadMs.toFixed(0).padStart(7)}  ${s.evalMs.toFixed(0).padStart(7)}  ${(s.evalMs / s.pools).toFixed(1).padStart(12)}  ${s.peakRssMb.toFixed(0).padStart(11)}`,
    );
  }
  const small = samples[0];
  const large = samples[samples.length - 1];
  // Linear growth means a constant cost per pool on top of a fixed one (first serialization of each
  // provider, the SDK's own setup): per-pool time must not rise with the size.
  const growth = large.evalMs / large.pools / (small.evalMs / small.pools);
  const marginal = (large.evalMs - small.evalMs) / (large.pools - small.pools);
  console.log(
    `fit: ${(small.evalMs - marginal * small.pools).toFixed(0)} ms fixed + ${marginal.toFixed(1)} ms per pool`,
  );
  const goals = [
    [`50 pools evaluated in ${(large.evalMs / 1000).toFixed(2)} s (goal < 3 s)`, large.evalMs < 3000],
    [`50 pools peak RSS ${large.peakRssMb.toFixed(0)} MB (goal < 400 MB)`, large.peakRssMb < 400],
    [`time per pool at 50 / at 5: ${growth.toFixed(2)} (goal <= 1: no worse than linear)`, growth <= 1],
  ] as const;

  console.log("");
  console.log("demo: deployment time against the simulator's critical path (npm run demo, plain output)");
  const demo = await run([path.join(ROOT, "harness", "demo.ts")], { CI: "1" });
  const line = demo.split("\n").find((l) => l.includes("simulator critical path"));
  const ratio = Number(/ratio ([\d.]+)/.exec(line ?? "")?.[1]);
  console.log(`  ${line?.replace(/^\[[^\]]*\]\s*/, "") ?? "no result line"}`);
  const all = [...goals, [`demo ratio ${ratio.toFixed(2)} (goal <= 1.1)`, ratio <= 1.1] as const];
  console.log("");
  for (const [text, met] of all) console.log(`${met ? "met    " : "MISSED "} ${text}`);
  return 0;
}

if (process.argv[2] === "--child") {
  child(Number(process.argv[3])).then(
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
