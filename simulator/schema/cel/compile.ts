/**
 * Compiling `x-kubernetes-validations` rules (k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel,
 * compilation.go, Compile): each rule parsed once per process (programs are cached by their text, so a
 * CRD loaded again or updated reuses them), with `self` and `oldSelf` declared, whether it is a
 * transition rule (it reads `oldSelf`), and its program, instrumented to meter its runtime cost.
 */
import { celEnv, celFunc, CelInput, CelScalar, isCelError, parse, plan } from "@bufbuild/cel";
import type { Expr, ParsedExpr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { KUBERNETES_LIBRARY, OPTIONAL_SELECT } from "./library";
import { charge, COST_FUNCTION, staticNodeCost } from "./cost";

const { DYN, INT } = CelScalar;

/** A compiled rule or message expression. */
export interface Program {
  /** The parsed, rewritten expression, which the cost estimator reads. */
  expr: Expr;
  usesOldSelf: boolean;
  /** Evaluates with `self` (and `oldSelf` when given); returns the value or throws the evaluation error. */
  eval(self: unknown, oldSelf?: unknown): unknown;
}

/** A rule that does not compile: the message kube-apiserver gives, without the field. */
export class CompileError extends Error {}

const env = celEnv({
  variables: { self: DYN, oldSelf: DYN },
  funcs: [
    ...KUBERNETES_LIBRARY,
    celFunc(COST_FUNCTION, [INT, DYN], DYN, (cost, value) => charge(cost, value) as CelInput),
  ],
});

/** The marker a `.?field` selection becomes before parsing: the parser here does not know `.?`. */
const OPTIONAL_MARK = "__optional_select__";

/** Replaces `.?name` outside string literals with `.<mark>name`. */
function markOptionalSelections(source: string): string {
  let out = "";
  for (let i = 0; i < source.length;) {
    const c = source[i];
    if (c === '"' || c === "'") {
      const triple = source.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < source.length && !source.startsWith(quote, j)) j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + quote.length);
      i = j + quote.length;
    } else if (c === "." && source[i + 1] === "?") {
      out += `.${OPTIONAL_MARK}`;
      i += 2;
      while (source[i] === " ") i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const isOptionalSelect = (e: Expr) =>
  e.exprKind.case === "callExpr" && e.exprKind.value.function === OPTIONAL_SELECT;

/** Walks every node of an expression, children first. */
export function visit(e: Expr, f: (e: Expr) => void): void {
  const k = e.exprKind;
  switch (k.case) {
    case "selectExpr":
      if (k.value.operand) visit(k.value.operand, f);
      break;
    case "callExpr":
      if (k.value.target) visit(k.value.target, f);
      k.value.args.forEach((a) => visit(a, f));
      break;
    case "listExpr":
      k.value.elements.forEach((a) => visit(a, f));
      break;
    case "structExpr":
      k.value.entries.forEach((entry) => {
        if (entry.keyKind.case === "mapKey") visit(entry.keyKind.value, f);
        if (entry.value) visit(entry.value, f);
      });
      break;
    case "comprehensionExpr":
      for (const part of ["iterRange", "accuInit", "loopCondition", "loopStep", "result"] as const) {
        const child = k.value[part];
        if (child) visit(child, f);
      }
      break;
  }
  f(e);
}

/**
 * Turns marked selections, and selections on their results (optional chaining), into calls of the
 * optional selection; and charges each comprehension iteration its loop's cost.
 */
function rewrite(parsed: ParsedExpr & { expr: Expr }): void {
  let nextId = 0n;
  visit(parsed.expr, (e) => {
    if (e.id > nextId) nextId = e.id;
  });
  const constant = (value: bigint | string): Expr =>
    ({
      $typeName: "cel.expr.Expr",
      id: ++nextId,
      exprKind: {
        case: "constExpr",
        value: {
          $typeName: "cel.expr.Constant",
          constantKind:
            typeof value === "string" ? { case: "stringValue", value } : { case: "int64Value", value },
        },
      },
    }) as Expr;
  const call = (fn: string, args: Expr[]): Expr["exprKind"] =>
    ({
      case: "callExpr",
      value: { $typeName: "cel.expr.Expr.Call", function: fn, args },
    }) as Expr["exprKind"];
  visit(parsed.expr, (e) => {
    const k = e.exprKind;
    if (k.case === "selectExpr" && k.value.operand && !k.value.testOnly) {
      const marked = k.value.field.startsWith(OPTIONAL_MARK);
      if (marked || isOptionalSelect(k.value.operand)) {
        const field = marked ? k.value.field.slice(OPTIONAL_MARK.length) : k.value.field;
        e.exprKind = call(OPTIONAL_SELECT, [k.value.operand, constant(field)]);
      }
    }
    if (e.exprKind.case === "selectExpr" && e.exprKind.value.field.startsWith(OPTIONAL_MARK)) {
      throw new CompileError("unsupported syntax: '.?' inside has()");
    }
    if (k.case === "comprehensionExpr" && k.value.loopStep) {
      const step = k.value.loopStep;
      const wrapped: Expr = { ...step, id: ++nextId } as Expr;
      wrapped.exprKind = call(COST_FUNCTION, [
        constant(
          BigInt(staticNodeCost(step) + (k.value.loopCondition ? staticNodeCost(k.value.loopCondition) : 0)),
        ),
        { ...step } as Expr,
      ]);
      k.value.loopStep = wrapped;
    }
  });
}

const cache = new Map<string, Program | CompileError>();

/** Compiles a rule or message expression, once per process for the same text. */
export function compile(source: string): Program {
  let compiled = cache.get(source);
  if (!compiled) {
    compiled = compileUncached(source);
    cache.set(source, compiled);
  }
  if (compiled instanceof CompileError) throw compiled;
  return compiled;
}

function compileUncached(source: string): Program | CompileError {
  let parsed: ParsedExpr & { expr: Expr };
  try {
    parsed = parse(markOptionalSelections(source));
    rewrite(parsed);
  } catch (error) {
    return error instanceof CompileError
      ? error
      : new CompileError(`compilation failed: ${(error as Error).message}`);
  }
  let usesOldSelf = false;
  visit(parsed.expr, (e) => {
    if (e.exprKind.case === "identExpr" && e.exprKind.value.name === "oldSelf") usesOldSelf = true;
  });
  const top = staticNodeCost(parsed.expr);
  const run = plan(env, parsed);
  return {
    expr: parsed.expr,
    usesOldSelf,
    eval(self, oldSelf) {
      charge(BigInt(top), null);
      const result = run({ self, oldSelf: oldSelf ?? null } as never);
      if (isCelError(result)) throw result;
      return result;
    },
  };
}
