/**
 * A per-example fixtures file answers what a program asks of the outside world when it is evaluated
 * without Pulumi's engine: cloud lookups (invokes) always, and reads of cluster objects when there is no
 * cluster (render). A question without an answer is an error that says what to add, never a guess.
 */
import * as fs from "node:fs";
import { parse } from "yaml";

export interface InvokeAnswer {
  /** A deep-partial pattern of the invoke's inputs; absent matches any call of the token. */
  match?: unknown;
  result: Record<string, unknown>;
}

export interface Fixtures {
  /** Where the answers came from, for messages. */
  file: string;
  objects: Array<Record<string, unknown>>;
  invokes: Record<string, InvokeAnswer[]>;
  /** The file does not exist: an answer asked for says to write it. */
  missing?: boolean;
}

/** What to do when `fixtures` lack an answer: add it there, or write the file. */
function remedy(fixtures: Fixtures, add: string): string {
  return fixtures.missing
    ? `there is no ${fixtures.file}: write one beside the program and add it ${add}, as examples/aws-infra-windows/fixtures.yaml does`
    : `add it to ${fixtures.file} ${add}`;
}

export function loadFixtures(file: string): Fixtures {
  const raw = (parse(fs.readFileSync(file, "utf8")) ?? {}) as Partial<Omit<Fixtures, "file">>;
  if (raw.objects !== undefined && !Array.isArray(raw.objects))
    throw new Error(`${file}: objects must be a list`);
  const invokes = raw.invokes ?? {};
  for (const [token, answers] of Object.entries(invokes)) {
    if (!Array.isArray(answers) || answers.some((a) => typeof a?.result !== "object" || a.result === null)) {
      throw new Error(`${file}: invokes.${token} must be a list of { match?, result } with an object result`);
    }
  }
  return { file, objects: raw.objects ?? [], invokes };
}

/** Fixtures that answer nothing: every lookup is then an error naming the fixtures file to write. */
export function noFixtures(file: string): Fixtures {
  return { file, objects: [], invokes: {}, missing: true };
}

/** True when every field of `pattern` is found in `value` (lists: same length, element by element). */
export function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return (
      Array.isArray(value) && value.length === pattern.length && pattern.every((p, i) => matches(p, value[i]))
    );
  }
  if (pattern !== null && typeof pattern === "object") {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    return Object.entries(pattern).every(([k, p]) => matches(p, (value as Record<string, unknown>)[k]));
  }
  return pattern === value;
}

export function answerInvoke(
  fixtures: Fixtures,
  token: string,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  const answer = (fixtures.invokes[token] ?? []).find(
    (a) => a.match === undefined || matches(a.match, inputs),
  );
  if (!answer) {
    throw new Error(
      `no answer for the cloud lookup ${token} with inputs ${JSON.stringify(inputs)}: ${remedy(fixtures, `under invokes.${token} (a { match, result } entry)`)}`,
    );
  }
  return answer.result;
}

/** The fixture object a `.get` of `apiVersion`/`kind` with id `namespace/name` (or `name`) reads. */
export function answerRead(
  fixtures: Fixtures,
  apiVersion: string,
  kind: string,
  id: string,
): Record<string, unknown> {
  const [namespace, name] = id.includes("/") ? id.split("/", 2) : [undefined, id];
  const found = fixtures.objects.find((o) => {
    const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
    return (
      o.apiVersion === apiVersion && o.kind === kind && meta.name === name && meta.namespace === namespace
    );
  });
  if (!found) {
    throw new Error(
      `the program reads ${kind} ${id} (${apiVersion}) from the cluster, and without a cluster it has no answer: ${remedy(fixtures, "under objects")}, or give the component the values it reads (for the cluster facts: infrastructureId, platform, region)`,
    );
  }
  return found;
}
