/**
 * How a provider's diff becomes a replacement, for every provider, as the engine's step generator
 * decides it (pulumi/pulumi pkg/resource/deploy/step_generator.go): the engine's own diff of the
 * inputs when the provider cannot tell (diffResource, for a provider answering DIFF_UNKNOWN), then the
 * program's `replaceOnChanges` turning each change it covers into a replacement (applyReplaceOnChanges),
 * then delete-before-replace as the program says, else as the provider asks. Property paths are the
 * engine's (sdk/go/common/resource/properties_path.go): `a.b`, `a[0]`, `a["key.with.dots"]`, `*`.
 * Pure: plan.ts asks it, the step modules carry out what it decides.
 */
import { isObject } from "../../primitives/objects";
import { stableJson } from "../../primitives/stable-json";
import { redact, reveal } from "../secrets";
import type { Props } from "./rpc";

/** Keys and array indices; the key `*` matches any key or index at its depth. */
export type PropertyPath = Array<string | number>;

/** The key the engine gives a replacement due to the old state's initialization errors. */
export const INIT_ERROR_KEY = "#initerror";

/** A property path parsed as the engine parses `replaceOnChanges` and detailed diff keys (ParsePropertyPath). */
export function parsePropertyPath(text: string): PropertyPath {
  if (text.startsWith(".")) throw new Error("expected property path to start with a name or index");
  const path: PropertyPath = [];
  let rest = text;
  while (rest.length > 0) {
    if (rest[0] === ".") {
      rest = rest.slice(1);
      if (rest.length === 0) throw new Error("expected property path to end with a name or index");
    } else if (rest.startsWith('["')) {
      let key = "";
      let i = 2;
      for (;;) {
        if (i >= rest.length) throw new Error("missing closing quote in property name");
        if (rest[i] === '"') break;
        if (rest[i] === "\\" && rest[i + 1] === '"') {
          key += '"';
          i += 2;
        } else key += rest[i++];
      }
      if (rest[i + 1] !== "]") throw new Error("missing closing bracket in property access");
      path.push(key);
      rest = rest.slice(i + 2);
    } else if (rest[0] === "[") {
      const close = rest.indexOf("]");
      if (close < 0) throw new Error("missing closing bracket in array index");
      const segment = rest.slice(1, close);
      if (segment !== "*" && !/^[+-]?\d+$/.test(segment))
        throw new Error(`invalid array index: ${JSON.stringify(segment)}`);
      path.push(segment === "*" ? "*" : Number(segment));
      rest = rest.slice(close + 1);
    } else {
      const end = rest.search(/[.[]/);
      const key = end < 0 ? rest : rest.slice(0, end);
      path.push(key);
      rest = rest.slice(key.length);
    }
  }
  return path;
}

/** A path as the engine writes one (PropertyPath.String): keys of other characters than [A-Za-z0-9_] quoted. */
export function formatPropertyPath(path: PropertyPath): string {
  return path
    .map((k, i) => {
      if (typeof k === "number") return `[${k}]`;
      if (/^[A-Za-z0-9_]*$/.test(k)) return i === 0 ? k : `.${k}`;
      return `["${k.replaceAll('"', '\\"')}"]`;
    })
    .join("");
}

/** Whether `path` covers `other`: a prefix of it, `*` matching any key or index (PropertyPath.Contains). */
export function pathContains(path: PropertyPath, other: PropertyPath): boolean {
  return other.length >= path.length && path.every((k, i) => k === "*" || k === other[i]);
}

/** A provider's answer to Diff as the engine holds it (plugin.DiffResult). */
export interface ProviderDiff {
  changes: "some" | "none" | "unknown";
  /** Top-level keys whose change replaces the resource. */
  replaceKeys: string[];
  /** Top-level keys that changed, when the provider names them. */
  changedKeys: string[];
  /** Each changed path, true where its change replaces; undefined when the provider details none. */
  detailedDiff?: Record<string, boolean>;
  deleteBeforeReplace: boolean;
}

const hasValue = (v: unknown) => v !== undefined && v !== null;

/**
 * The paths where `news` differs from `olds`, as the engine details a diff (PropertyMap.Diff,
 * NewDetailedDiffFromObjectDiff): into objects and array elements, an added or removed value whole.
 */
export function changedPaths(olds: unknown, news: unknown, prefix: PropertyPath): PropertyPath[] {
  if (Array.isArray(olds) && Array.isArray(news)) {
    const length = Math.max(olds.length, news.length);
    return Array.from({ length }, (_, i) =>
      i < olds.length && i < news.length ? changedPaths(olds[i], news[i], [...prefix, i]) : [[...prefix, i]],
    ).flat();
  }
  if (isObject(olds) && isObject(news)) {
    const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort();
    return keys.flatMap((k) => {
      const [o, n] = [olds[k], news[k]];
      if (!hasValue(o) && !hasValue(n)) return [];
      if (!hasValue(o) || !hasValue(n)) return [[...prefix, k]];
      return changedPaths(o, n, [...prefix, k]);
    });
  }
  return stableJson(olds) === stableJson(news) ? [] : [prefix];
}

/**
 * The engine's diff of a resource's old and new inputs, secrets revealed, for a provider that answered
 * DIFF_UNKNOWN (step_generator.go diffResource): the changed keys and each changed path.
 */
export function engineDiff(olds: Props, news: Props): ProviderDiff {
  const paths = changedPaths(reveal(olds), reveal(news), []);
  return {
    changes: paths.length > 0 ? "some" : "none",
    replaceKeys: [],
    changedKeys: [...new Set(paths.map((p) => String(p[0])))],
    detailedDiff: Object.fromEntries(paths.map((p) => [formatPropertyPath(p), false])),
    deleteBeforeReplace: false,
  };
}

/**
 * `diff` with the program's `replaceOnChanges` applied (step_generator.go applyReplaceOnChanges): a
 * detailed path or a changed key that one of them covers replaces, and, when the old state has
 * initialization errors, a `*` (or `#initerror`) replaces even without changes. Nothing changes for a
 * diff that names no keys and details no paths (a dynamic provider's `diff` returning `changes: true`
 * only), as the engine has nothing to match. Throws on a malformed path, as the engine fails the step.
 */
export function applyReplaceOnChanges(
  diff: ProviderDiff,
  replaceOnChanges: string[],
  hasInitErrors: boolean,
): ProviderDiff {
  if (diff.changes !== "some" && !hasInitErrors) return diff;
  const covering = replaceOnChanges.map(parsePropertyPath);
  const covered = (path: string) => covering.some((c) => pathContains(c, parsePropertyPath(path)));
  const detailedDiff =
    diff.detailedDiff &&
    Object.fromEntries(Object.entries(diff.detailedDiff).map(([p, replace]) => [p, replace || covered(p)]));
  const replaceKeys = [...new Set([...diff.replaceKeys, ...diff.changedKeys.filter(covered)])];
  let changes = diff.changes;
  if (hasInitErrors && covered(INIT_ERROR_KEY)) {
    replaceKeys.push(INIT_ERROR_KEY);
    if (detailedDiff) detailedDiff[INIT_ERROR_KEY] = true;
    changes = "some";
  }
  return { ...diff, changes, replaceKeys, ...(detailedDiff ? { detailedDiff } : {}) };
}

/** Whether the diff replaces the resource (DiffResult.Replace). */
export function isReplacement(diff: ProviderDiff): boolean {
  return diff.replaceKeys.length > 0 || Object.values(diff.detailedDiff ?? {}).some((replace) => replace);
}

/** What a replacement shows: the keys that replace it, else the detailed paths that do. */
export function replacingPaths(diff: ProviderDiff): string[] {
  const keys = diff.replaceKeys.filter((k) => k !== INIT_ERROR_KEY);
  if (keys.length > 0) return keys;
  return Object.entries(diff.detailedDiff ?? {})
    .filter(([p, replace]) => replace && p !== INIT_ERROR_KEY)
    .map(([p]) => p);
}

/**
 * Whether the old resource is deleted before its replacement is created: as the program's
 * `deleteBeforeReplace` says when it says (true or false), else as the provider asks (step_generator.go).
 */
export function deletesBeforeReplace(program: boolean | undefined, provider: boolean): boolean {
  return program ?? provider;
}

/**
 * Why a resource the program still imports cannot be replaced (step_generator.go): the replacement
 * would change the ID the program gives. The engine warns at preview and fails the step at `up`. Each
 * replacing key is shown with its old and new value, secrets redacted.
 */
export function importedReplacement(paths: string[], olds: Props, news: Props): string {
  const keys = [...new Set(paths.map((p) => String(parsePropertyPath(p)[0])))];
  const shown = (value: unknown) => JSON.stringify(redact(value)) ?? "null";
  return (
    "previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;\n" +
    keys.map((k) => `${k}: ${shown(olds[k])} => ${shown(news[k])}`).join("\n")
  );
}
