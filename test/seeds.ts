import * as fs from "node:fs";
import { nodeMetadataRecord } from "../builders/machineset/node-metadata";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";
import { SEEDS } from "./reference";

/**
 * Access to the seed documents, the OpenShift documents whose YAML examples are the reference output.
 * They are read in place (never copied into the repository); tests reading them call
 * `requireReference(this, SEEDS)` first.
 */
const SEEDS_DIR = SEEDS.dir;

export function readSeed(prefix: string): string {
  const file = fs.readdirSync(SEEDS_DIR).find((f) => f.startsWith(prefix));
  if (!file) throw new Error(`no seed document ${prefix}* in ${SEEDS_DIR}`);
  return fs.readFileSync(path.join(SEEDS_DIR, file), "utf8");
}

/**
 * The YAML example that starts at the first line matching `start` (after the line starting with `after`,
 * when given): dedented, without the docs' callout
 * markers (`<infrastructure_id> 1`, lone `1 3 5` lines), placeholders replaced by `substitute`. It runs
 * until `end` matches or a line is no longer part of the example.
 */
export function seedYaml(
  prefix: string,
  start: RegExp,
  end?: RegExp,
  substitute: Record<string, string> = {},
  after?: string,
): unknown {
  const lines = readSeed(prefix).split("\n");
  const section = after === undefined ? 0 : lines.findIndex((l) => l.startsWith(after));
  if (section < 0) throw new Error(`no section ${after} in seed ${prefix}`);
  const from = lines.findIndex((l, i) => i >= section && start.test(l));
  if (from < 0) throw new Error(`no line matching ${start} in seed ${prefix}`);
  const indent = /^\s*/.exec(lines[from])![0].length;
  const block: string[] = [];
  for (const line of lines.slice(from)) {
    if (end && block.length > 0 && end.test(line)) break;
    const calloutLine = /^\s*\d+(\s+\d+)*$/.test(line);
    const outside =
      line.trim() !== "" && (/^\s*/.exec(line)![0].length < indent || !/^(\s|-|[a-zA-Z]+:)/.test(line));
    if (block.length > 0 && (calloutLine || outside)) break;
    block.push(line.slice(indent));
  }
  const text = block
    .map((line, i) => {
      const next = block.slice(i + 1).find((l) => l.trim() !== "") ?? "";
      const [own, nextIndent] = [/^\s*/.exec(line)![0].length, /^\s*/.exec(next)![0].length];
      const opensBlock = nextIndent > own || (nextIndent === own && next.trimStart().startsWith("- "));
      // The docs number their callouts after a value (`<infrastructure_id> 1`) or after a key that opens a
      // block (`nodeSelector: 2`); a lone number after a key (`replicas: 1`) is a real value.
      const afterValue =
        /^\s*(- )?([^:]+:\s+)?\S.*\s+\d+$/.test(line) && !/^\s*(- )?[^:\s]+:\s+\d+$/.test(line);
      return afterValue || (opensBlock && /:\s+\d+$/.test(line)) ? line.replace(/\s+\d+$/, "") : line;
    })
    .map((line) => Object.entries(substitute).reduce((l, [from, to]) => l.split(from).join(to), line))
    .join("\n");
  return parseAllDocuments(text)[0].toJS();
}

/** Removes the serialization leftovers the seeds carry (`creationTimestamp: null`, `publicIp: null`). */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)] as const)
      .filter(([, v]) => !(v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0));
    return Object.fromEntries(entries) as T;
  }
  return value;
}

/** Seed 002's command that stores WMCO's private key (section 3.2), for the key in `keyFile`. */
export function wmcoKeySecretCommand(keyFile: string): string[] {
  return [
    "create",
    "secret",
    "generic",
    "cloud-private-key",
    `--from-file=private-key.pem=${keyFile}`,
    "-n",
    "openshift-windows-machine-config-operator",
  ];
}

/**
 * A seed's MachineSet with the library's one addition: the record of its node labels and taints on the
 * template (node-metadata.ts), which the machine-api copies into each Machine it creates.
 */
export function withNodeMetadataRecord<T>(machineSet: T): T {
  const template = (
    machineSet as { spec: { template: { metadata: Record<string, unknown>; spec: Record<string, any> } } }
  ).spec.template;
  const record = nodeMetadataRecord(template.spec.metadata?.labels ?? {}, template.spec.taints ?? []);
  template.metadata = { ...record, ...template.metadata };
  return machineSet;
}
