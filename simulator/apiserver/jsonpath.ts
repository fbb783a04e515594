/**
 * The subset of Kubernetes JSONPath that printer columns and scale subresources use:
 * `.a.b`, escaped dots (`.labels.a\.b/c`), `['key']`, `[0]`, `[*]` and `[?(@.type=="Ready")]`.
 */
type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "all" }
  | { kind: "filter"; path: string[]; op: "==" | "!="; value: string };

export function parseJsonPath(expression: string): Step[] {
  const source = expression.replace(/^\{(.*)\}$/, "$1").trim();
  const steps: Step[] = [];
  let i = 0;
  const readName = (): string => {
    let name = "";
    while (i < source.length && source[i] !== "." && source[i] !== "[") {
      if (source[i] === "\\" && i + 1 < source.length) i++;
      name += source[i++];
    }
    return name;
  };
  while (i < source.length) {
    const ch = source[i];
    if (ch === ".") {
      i++;
      const name = readName();
      if (name) steps.push({ kind: "field", name });
    } else if (ch === "[") {
      const end = source.indexOf("]", source[i + 1] === "?" ? source.indexOf(")", i) : i);
      if (end < 0) throw new Error(`unterminated [ in ${expression}`);
      const inner = source.slice(i + 1, end).trim();
      i = end + 1;
      let m: RegExpExecArray | null;
      if (inner === "*") steps.push({ kind: "all" });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: "index", index: Number(inner) });
      else if ((m = /^'(.*)'$|^"(.*)"$/.exec(inner))) {
        steps.push({ kind: "field", name: (m[1] ?? m[2]).replace(/\\(.)/g, "$1") });
      } else if ((m = /^\?\(@((?:\.[^=!\s]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|(\S+))\)$/.exec(inner))) {
        steps.push({
          kind: "filter",
          path: m[1].slice(1).split("."),
          op: m[2] as "==" | "!=",
          value: m[3] ?? m[4] ?? m[5],
        });
      } else {
        throw new Error(`unsupported JSONPath segment [${inner}] in ${expression}`);
      }
    } else {
      const name = readName();
      if (name) steps.push({ kind: "field", name });
      else i++;
    }
  }
  return steps;
}

function child(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** All values the expression selects, in document order. */
export function evaluateJsonPath(value: unknown, expression: string | Step[]): unknown[] {
  const steps = typeof expression === "string" ? parseJsonPath(expression) : expression;
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === "field") {
        const c = child(v, step.name);
        if (c !== undefined) next.push(c);
      } else if (step.kind === "index") {
        if (Array.isArray(v)) {
          const c = v[step.index < 0 ? v.length + step.index : step.index];
          if (c !== undefined) next.push(c);
        }
      } else if (step.kind === "all") {
        if (Array.isArray(v)) next.push(...v);
        else if (v !== null && typeof v === "object") next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          const actual = step.path.reduce<unknown>((acc, key) => child(acc, key), item);
          const matches = actual !== undefined && String(actual) === step.value;
          if (matches === (step.op === "==")) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

/** Sets a plain `.a.b.c` path, creating objects on the way. */
export function setJsonPath(target: Record<string, unknown>, expression: string, value: unknown): void {
  const names = parseJsonPath(expression).map((s) => {
    if (s.kind !== "field") throw new Error(`cannot set through ${expression}`);
    return s.name;
  });
  let cursor = target;
  names.slice(0, -1).forEach((name) => {
    if (cursor[name] === null || typeof cursor[name] !== "object") cursor[name] = {};
    cursor = cursor[name] as Record<string, unknown>;
  });
  cursor[names[names.length - 1]] = value;
}
