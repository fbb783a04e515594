import { closest } from "../../primitives/names";
import { InputError } from "../errors";

/**
 * An EC2 instance type as AWS names them ("Amazon EC2 instance type naming conventions"): the family,
 * its generation and attribute letters, an optional variant after a dash, a dot, then the size:
 * `m6i.xlarge`, `c7gn.16xlarge`, `m7i-flex.large`, `u7i-12tb.224xlarge`, `p6-b200.48xlarge`,
 * `r8g.metal-24xl`; the high-memory and Mac families name their variant without a generation
 * (`u-6tb1.metal`, `mac-m4.metal`, `mac2-m2pro.metal`). Lower case only, as EC2 spells them.
 */
const INSTANCE_TYPE =
  /^(?:[a-z]+\d+[a-z]*(?:-[a-z0-9]+)?|[a-z]+-[a-z0-9]+)\.(?:nano|micro|small|medium|large|xlarge|[1-9]\d*xlarge|metal(?:-[1-9]\d*xl)?)$/;

const SIZES = ["nano", "micro", "small", "medium", "large", "xlarge", "metal"];

/** Whether `name` has the shape of an EC2 instance type (not whether EC2 offers it). */
export function isAwsInstanceTypeName(name: string): boolean {
  return INSTANCE_TYPE.test(name);
}

/** The size part respelt: `2xl` as `2xlarge`, a size a letter or two off as that size. */
function respeltSize(size: string): string | undefined {
  const abbreviated = /^(\d*)xl$/.exec(size);
  if (abbreviated) return `${abbreviated[1]}xlarge`;
  const [, count, word] = /^(\d*)(.*)$/.exec(size)!;
  const near = closest(word, count ? ["xlarge"] : SIZES);
  return near === undefined ? undefined : `${count}${near}`;
}

/** Spellings a user may have meant, nearest first: the case, the dot, the size. */
function candidates(name: string): string[] {
  const lower = name.trim().toLowerCase();
  const found = [lower];
  // A dash, underscore, comma or space where the dot goes, or no dot at all: each place, leftmost first.
  for (let i = 1; i < lower.length; i++) {
    if ("-_, ".includes(lower[i])) found.push(`${lower.slice(0, i)}.${lower.slice(i + 1)}`);
  }
  for (let i = 1; i < lower.length; i++) found.push(`${lower.slice(0, i)}.${lower.slice(i)}`);
  const dot = lower.lastIndexOf(".");
  const size = dot > 0 ? respeltSize(lower.slice(dot + 1)) : undefined;
  if (size) found.push(`${lower.slice(0, dot)}.${size}`);
  return found;
}

/** What is wrong with `name` as an instance type, with the spelling meant when there is one; undefined when fine. */
export function awsInstanceTypeProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name === "") {
    return `must be an EC2 instance type such as "m6i.xlarge", got ${JSON.stringify(name)}`;
  }
  if (isAwsInstanceTypeName(name)) return undefined;
  const meant = candidates(name).find(isAwsInstanceTypeName);
  return `${JSON.stringify(name)} is not an EC2 instance type${meant ? `: did you mean ${JSON.stringify(meant)}?` : ""} (instance types are <family><generation><attributes>.<size>, e.g. "m6i.xlarge", "c7gn.16xlarge", "r8g.metal-24xl")`;
}

/** `name` when it has the shape of an instance type; otherwise an InputError at `path` saying what was meant. */
export function requireAwsInstanceType(path: string, name: unknown): string {
  const problem = awsInstanceTypeProblem(name);
  if (problem) throw new InputError(path, problem);
  return name as string;
}
