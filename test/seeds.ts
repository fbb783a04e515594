import * as fs from "node:fs";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * Access to `../shared/seeds`, the OpenShift documents whose YAML examples are the reference output.
 * They are read in place (never copied into the repository); OPENSHIFT_SEEDS_DIR overrides the location.
 */
export const SEEDS_DIR = process.env.OPENSHIFT_SEEDS_DIR ?? path.resolve(__dirname, "../../shared/seeds");
export const CRDS_DIR = process.env.OPENSHIFT_CRDS_DIR ?? path.resolve(__dirname, "../../shared/crds");

export function readSeed(prefix: string): string {
  const file = fs.readdirSync(SEEDS_DIR).find((f) => f.startsWith(prefix));
  if (!file) throw new Error(`no seed document ${prefix}* in ${SEEDS_DIR}`);
  return fs.readFileSync(path.join(SEEDS_DIR, file), "utf8");
}

/**
 * The YAML example that starts at the first line matching `start` and runs until the first line (after
 * it) that is not indented YAML of the same document, or until `end` matches.
 */
export function seedYaml(prefix: string, start: RegExp, end?: RegExp): unknown {
  const lines = readSeed(prefix).split("\n");
  const from = lines.findIndex((l) => start.test(l));
  if (from < 0) throw new Error(`no line matching ${start} in seed ${prefix}`);
  const block: string[] = [];
  for (const line of lines.slice(from)) {
    if (end && block.length > 0 && end.test(line)) break;
    if (block.length > 0 && line.trim() !== "" && !/^(\s|-|[a-zA-Z]+:)/.test(line)) break;
    block.push(line);
  }
  const docs = parseAllDocuments(block.join("\n"));
  return docs[0].toJS();
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
