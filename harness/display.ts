/**
 * What `npm run deploy` prints, in the shape of the Pulumi CLI's non-interactive display
 * (pulumi/pulumi pkg/backend/display: progress.go's one line per step event, `Diagnostics:` grouped per
 * resource, `Outputs:` with values aligned and secrets as `[secret]`, then `Resources:` and `Duration:`).
 * Pure functions of what the engine reports, so the CLI's output is tested line by line.
 */
import type { Diagnostic } from "./engine/diagnostics";
import type { PlanStep, StepOp } from "./engine/plan";
import { nameOf } from "./engine/checkpoint";
import { isSecret } from "./secrets";
import { UNKNOWN } from "./engine/rpc";
import { isPoolLine } from "../builders/rollout-impact/format";

export type Command = "preview" | "up" | "refresh" | "destroy";

const HEADERS: Record<Command, string> = {
  preview: "Previewing update",
  up: "Updating",
  refresh: "Refreshing",
  destroy: "Destroying",
};

/** `Previewing update (dev)`, as the CLI starts. */
export function header(command: Command, stack: string): string {
  return `${HEADERS[command]} (${stack})`;
}

const MARKS: Record<StepOp, string> = {
  create: "+ ",
  update: "~ ",
  replace: "+-",
  delete: "- ",
  same: "  ",
  read: "> ",
  import: "= ",
};

const VERBS: Record<StepOp, { planned: string; doing: string; done: string }> = {
  create: { planned: "create", doing: "creating", done: "created" },
  update: { planned: "update", doing: "updating", done: "updated" },
  replace: { planned: "replace", doing: "replacing", done: "replaced" },
  delete: { planned: "delete", doing: "deleting", done: "deleted" },
  same: { planned: "same", doing: "same", done: "unchanged" },
  read: { planned: "read", doing: "reading", done: "read" },
  import: { planned: "import", doing: "importing", done: "imported" },
};

/** ` +  <type> <name> creating`, ` +  <type> <name> created (2.1s)`, ` +  <type> <name> creating failed`. */
export function stepLine(
  event: { phase: "start" | "done" | "failed"; operation: StepOp; type: string; name: string },
  elapsedMs?: number,
): string {
  const verb = VERBS[event.operation];
  const status =
    event.phase === "start" ? verb.doing : event.phase === "done" ? verb.done : `${verb.doing} failed`;
  const elapsed = elapsedMs === undefined ? "" : ` (${(elapsedMs / 1000).toFixed(1)}s)`;
  return ` ${MARKS[event.operation]} ${event.type} ${event.name} ${status}${elapsed}`;
}

/** A preview's (or refresh's) steps, one line each as the CLI lists them; unchanged ones left out. */
export function planLines(plan: PlanStep[]): string[] {
  return plan
    .filter((s) => s.op !== "same")
    .map(
      (s) =>
        ` ${MARKS[s.op]} ${s.type} ${s.name} ${VERBS[s.op].planned}${s.diffs.length > 0 ? ` [diff: ${s.diffs.map((d) => `~${d}`).join(", ")}]` : ""}`,
    );
}

/** A waiter's progress line during `up`: its own human message, under the steps. */
export function progressLine(event: { resource?: string; waiter: string; message: string }): string {
  return `    ${event.resource ?? event.waiter}: ${event.message}`;
}

/** The resource a URN names, as the CLI heads its diagnostics: `<type> (<name>)`. */
function owner(urn: string, stackOwner: string): string {
  if (urn === "") return stackOwner;
  const types = urn.split("::")[2] ?? "";
  return `${types.slice(types.lastIndexOf("$") + 1)} (${nameOf(urn)})`;
}

/** A failure of a resource, with the component it belongs to (the parent's URN). */
export interface Failure {
  type: string;
  name: string;
  message: string;
  parent?: string;
}

/** `MachineConfig 99-banner` for a component's URN; undefined for the stack or none. */
function component(parent: string | undefined): string | undefined {
  if (!parent || parent.includes("::pulumi:pulumi:Stack::")) return undefined;
  const types = parent.split("::")[2] ?? "";
  return `${types
    .slice(types.lastIndexOf("$") + 1)
    .split(":")
    .pop()} ${nameOf(parent)}`;
}

/** `error: MachineConfig 99-banner: PoolRollout 99-banner-rollout: <reason>`: the component first. */
export function errorLine(failure: Failure): string {
  const of = component(failure.parent);
  return `error: ${of ? `${of}: ` : ""}${failure.message}`;
}

/**
 * `Diagnostics:` then, per resource in the order it first spoke, `  <type> (<name>):` and its messages
 * indented (warnings and errors prefixed as the CLI does; debug left out). Messages without a resource
 * go under the stack. Failures are each failed resource's error, said once.
 */
export function diagnosticsLines(
  diagnostics: Diagnostic[],
  failures: Failure[],
  programErrors: string[],
  stack: { project: string; stack: string },
): string[] {
  const stackOwner = `pulumi:pulumi:Stack (${stack.project}-${stack.stack})`;
  const groups = new Map<string, string[]>();
  const add = (key: string, line: string) => {
    const lines = groups.get(key) ?? [];
    if (!lines.includes(line)) lines.push(line);
    groups.set(key, lines);
  };
  const prefix = { debug: "", info: "", warning: "warning: ", error: "error: " } as const;
  for (const d of diagnostics) {
    if (d.severity === "debug" || d.severity === "error") continue;
    add(owner(d.urn, stackOwner), `${prefix[d.severity]}${d.message.trimEnd()}`);
  }
  for (const f of failures) {
    const of = component(f.parent);
    const reason = f.message.replace(`${f.type.split(":").pop()} ${f.name}: `, "");
    add(`${f.type} (${f.name})${of ? ` in ${of}` : ""}`, `error: ${reason}`);
  }
  for (const e of programErrors) add(stackOwner, `error: ${e}`);
  if (groups.size === 0) return [];
  const lines = ["Diagnostics:"];
  for (const [key, messages] of groups) {
    lines.push(`  ${key}:`);
    for (const m of messages) for (const l of m.split("\n")) lines.push(`    ${l}`);
    lines.push("");
  }
  return lines;
}

function value(v: unknown, indent: string): string[] {
  if (isSecret(v) || (v !== null && typeof v === "object" && (v as { secret?: unknown }).secret === true))
    return ["[secret]"];
  if (v === UNKNOWN) return ["[unknown]"];
  if (Array.isArray(v)) {
    if (v.length === 0) return ["[]"];
    return [
      "[",
      ...v.flatMap((item, i) => {
        const [first, ...rest] = value(item, `${indent}    `);
        return [`${indent}    [${i}]: ${first}`, ...rest];
      }),
      `${indent}]`,
    ];
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return ["{}"];
    const width = Math.max(...entries.map(([k]) => k.length));
    return [
      "{",
      ...entries.flatMap(([k, item]) => {
        const [first, ...rest] = value(item, `${indent}    `);
        return [`${indent}    ${k.padEnd(width)}: ${first}`, ...rest];
      }),
      `${indent}}`,
    ];
  }
  return [JSON.stringify(v) ?? "undefined"];
}

/** `Outputs:` with each stack output, names aligned, lists and maps spread as the CLI prints them. */
export function outputLines(outputs: Record<string, unknown>): string[] {
  const entries = Object.entries(outputs);
  if (entries.length === 0) return [];
  const width = Math.max(...entries.map(([k]) => k.length));
  const lines = ["Outputs:"];
  for (const [k, v] of entries) {
    const [first, ...rest] = value(v, "    ");
    lines.push(`    ${k.padEnd(width)}: ${first}`, ...rest);
  }
  lines.push("");
  return lines;
}

/** `Resources:` with the count of each kind of step (`+ 3 to create` in a preview, `+ 3 created` after). */
export function resourceLines(command: Command, counts: Partial<Record<StepOp, number>>): string[] {
  const planned = command === "preview";
  const lines = ["Resources:"];
  for (const op of ["create", "update", "replace", "delete", "import"] as const) {
    const n = counts[op];
    if (n) lines.push(`    ${MARKS[op].trim()} ${n} ${planned ? `to ${VERBS[op].planned}` : VERBS[op].done}`);
  }
  if (counts.same) lines.push(`    ${counts.same} unchanged`);
  if (lines.length === 1) lines.push("    no changes");
  return lines;
}

/** What a preview says each pool's nodes go through: its diagnostics about a pool, in order. */
export function poolLines(diagnostics: Diagnostic[]): string[] {
  return diagnostics
    .filter(
      (d) => (d.severity === "info" || d.severity === "warning") && !d.ephemeral && isPoolLine(d.message),
    )
    .map((d) => d.message);
}
