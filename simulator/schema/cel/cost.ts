/**
 * CEL cost limits as kube-apiserver applies them to validation rules (k8s.io/apiserver pkg/apis/cel
 * config.go; cel-go checker/cost.go and interpreter/runtimecost.go):
 * - at run time, each rule's evaluation may cost at most `PER_CALL_LIMIT` and one object's rules
 *   `RUNTIME_BUDGET` together. The cost is metered as cel-go charges it: one per function call, field
 *   selection and variable read, for the expression and for every iteration of a comprehension;
 * - at CRD creation and update, each rule's worst case estimated from the schema's bounds (maxLength,
 *   maxItems, maxProperties, else what fits in a request) may be at most `STATIC_RULE_LIMIT`, and all
 *   rules, each times how many times it can run, `STATIC_CRD_LIMIT` together.
 */
import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";

export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_BUDGET = 10_000_000;
export const STATIC_RULE_LIMIT = 10_000_000;
export const STATIC_CRD_LIMIT = 100_000_000;
/** The largest request the server reads (apiserver MaxRequestSizeBytes), which bounds unbounded sizes. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** The function instrumented programs call to charge cost. */
export const COST_FUNCTION = "@cost";

/** cel-go's message when a rule's evaluation exceeds the per-call limit. */
export const COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded";

const FREE_CALLS = new Set(["_&&_", "_||_", "_?_:_", "@not_strictly_false", "!_", COST_FUNCTION]);

/** The cost one evaluation of these nodes charges (calls, selections and reads), loops left to themselves. */
export function staticNodeCost(e: Expr, _top = false): number {
  const k = e.exprKind;
  switch (k.case) {
    case "identExpr":
      return 1;
    case "selectExpr":
      return 1 + (k.value.operand ? staticNodeCost(k.value.operand) : 0);
    case "callExpr":
      return (
        (FREE_CALLS.has(k.value.function) ? 0 : 1) +
        (k.value.target ? staticNodeCost(k.value.target) : 0) +
        k.value.args.reduce((t, a) => t + staticNodeCost(a), 0)
      );
    case "listExpr":
      return k.value.elements.reduce((t, a) => t + staticNodeCost(a), 0);
    case "structExpr":
      return k.value.entries.reduce(
        (t, entry) =>
          t +
          (entry.keyKind.case === "mapKey" ? staticNodeCost(entry.keyKind.value) : 0) +
          (entry.value ? staticNodeCost(entry.value) : 0),
        0,
      );
    case "comprehensionExpr":
      return (
        (k.value.iterRange ? staticNodeCost(k.value.iterRange) : 0) +
        (k.value.accuInit ? staticNodeCost(k.value.accuInit) : 0) +
        (k.value.result ? staticNodeCost(k.value.result) : 0)
      );
    default:
      return 0;
  }
}

interface Meter {
  used: number;
  limit: number;
}

let current: Meter | undefined;

/** Charges `cost` to the evaluation under way; returns `value` (the instrumented node's own value). */
export function charge(cost: bigint, value: unknown): unknown {
  if (current) {
    current.used += Number(cost);
    if (current.used > current.limit) throw new Error(COST_LIMIT_EXCEEDED);
  }
  return value;
}

/** Runs an evaluation under a cost limit; returns its outcome and what it cost. */
export function metered<T>(
  limit: number,
  evaluate: () => T,
): { cost: number } & ({ value: T } | { error: unknown }) {
  const meter: Meter = { used: 0, limit };
  const outer = current;
  current = meter;
  try {
    return { value: evaluate(), cost: meter.used };
  } catch (error) {
    return { error, cost: meter.used };
  } finally {
    current = outer;
  }
}
