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
import { JSONSchemaProps } from "../crds";

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
export function staticNodeCost(e: Expr): number {
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

/**
 * Runs an evaluation under a cost limit; returns its outcome and what it cost. CEL's errors are values
 * here (a rule on a list builds one per failing item), read for their message only: their stack traces
 * are not captured, which would cost most of the evaluation where Error.stackTraceLimit is unlimited.
 */
export function metered<T>(
  limit: number,
  evaluate: () => T,
): { cost: number } & ({ value: T } | { error: unknown }) {
  const meter: Meter = { used: 0, limit };
  const outer = current;
  const stackTraceLimit = Error.stackTraceLimit;
  current = meter;
  Error.stackTraceLimit = 0;
  try {
    return { value: evaluate(), cost: meter.used };
  } catch (error) {
    return { error, cost: meter.used };
  } finally {
    current = outer;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** What the estimator knows of a value: the schema it comes from, if any, and its largest size. */
interface Shape {
  schema?: JSONSchemaProps;
  /** Characters of a string, items of a list, entries of a map. */
  size: number;
}

interface Estimate {
  cost: number;
  shape: Shape;
}

/** A string's worst length: its maxLength, else a request of strings (model/schemas.go, estimateMaxStringLengthPerRequest). */
function maxLength(schema: JSONSchemaProps | undefined): number {
  if (schema?.maxLength !== undefined) return schema.maxLength;
  if (schema?.enum) return Math.max(0, ...schema.enum.map((v) => String(v).length));
  switch (schema?.format) {
    case "duration":
      return 64;
    case "date":
      return 12;
    case "date-time":
      return 64;
    default:
      return MAX_REQUEST_BYTES - 2;
  }
}

/**
 * The fewest bytes a value of a schema takes in JSON (model, DeclType.MinSerializedSize): an object
 * holds at least its required fields, a string `""`, a list `[]`.
 */
export function minSizeJson(schema: JSONSchemaProps | undefined): number {
  if (!schema || schema["x-kubernetes-int-or-string"]) return 1;
  if (schema.nullable) return 4;
  switch (schema.type) {
    case "boolean":
      return 4;
    case "string":
      return 2 + (schema.minLength ?? 0);
    case "object":
      return (schema.required ?? []).reduce(
        (t, name) => t + name.length + 4 + minSizeJson(schema.properties?.[name]),
        2,
      );
    case "array":
      return 2;
    default:
      return 1;
  }
}

/** A value's worst size under its schema: maxLength, maxItems, maxProperties, else what fits in a request. */
export function maxSize(schema: JSONSchemaProps | undefined): number {
  if (!schema) return MAX_REQUEST_BYTES;
  if (["integer", "number", "boolean"].includes(schema.type ?? "")) return 1;
  if (schema.type === "array") {
    return schema.maxItems ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSizeJson(schema.items) + 1));
  }
  if (schema.type === "object") {
    if (schema.maxProperties !== undefined) return schema.maxProperties;
    if (schema.properties) return Object.keys(schema.properties).length;
    const value = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
    return Math.floor((MAX_REQUEST_BYTES - 2) / (2 + 1 + minSizeJson(value) + 1));
  }
  return maxLength(schema);
}

const shapeOf = (schema: JSONSchemaProps | undefined): Shape => ({ schema, size: maxSize(schema) });

/** The schema of a field of an object schema (a property, else additionalProperties). */
function fieldSchema(schema: JSONSchemaProps | undefined, field: string): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  if (schema.properties?.[field]) return schema.properties[field];
  return typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
}

/** cel-go's factors: a string is traversed at 0.1 per character, a regex weighs 0.25 per character. */
const traversal = (size: number) => Math.ceil(size * 0.1);

/** Functions whose cost is a traversal of their receiver (or first argument). */
const TRAVERSING = new Set([
  "contains",
  "startsWith",
  "endsWith",
  "split",
  "lowerAscii",
  "upperAscii",
  "trim",
  "replace",
  "indexOf",
  "lastIndexOf",
  "substring",
  "charAt",
  "join",
  "isIP",
  "ip",
  "isCIDR",
  "cidr",
  "isURL",
  "url",
  "quantity",
  "isQuantity",
  "validate",
  "find",
  "findAll",
  "_+_",
]);

type Scope = ReadonlyMap<string, Shape>;

function estimateNode(e: Expr, scope: Scope): Estimate {
  const k = e.exprKind;
  switch (k.case) {
    case "constExpr":
      return {
        cost: 0,
        shape: { size: k.value.constantKind.case === "stringValue" ? k.value.constantKind.value.length : 1 },
      };
    case "identExpr":
      return { cost: 1, shape: scope.get(k.value.name) ?? { size: MAX_REQUEST_BYTES } };
    case "selectExpr": {
      const operand = k.value.operand
        ? estimateNode(k.value.operand, scope)
        : { cost: 0, shape: { size: 0 } };
      return { cost: operand.cost + 1, shape: shapeOf(fieldSchema(operand.shape.schema, k.value.field)) };
    }
    case "listExpr": {
      const items = k.value.elements.map((x) => estimateNode(x, scope));
      return { cost: items.reduce((t, x) => t + x.cost, 0) + 10, shape: { size: items.length } };
    }
    case "structExpr": {
      const cost = k.value.entries.reduce(
        (t, entry) =>
          t +
          (entry.keyKind.case === "mapKey" ? estimateNode(entry.keyKind.value, scope).cost : 0) +
          (entry.value ? estimateNode(entry.value, scope).cost : 0),
        0,
      );
      return { cost: cost + 30, shape: { size: k.value.entries.length } };
    }
    case "comprehensionExpr":
      return estimateComprehension(k.value, scope);
    case "callExpr":
      return estimateCall(k.value.function, k.value.target, k.value.args, scope);
    default:
      return { cost: 0, shape: { size: 0 } };
  }
}

function estimateCall(fn: string, target: Expr | undefined, argExprs: Expr[], scope: Scope): Estimate {
  const receiver = target ? estimateNode(target, scope) : undefined;
  const args = argExprs.map((a) => estimateNode(a, scope));
  const operands = receiver ? [receiver, ...args] : args;
  const sum = operands.reduce((t, x) => t + x.cost, 0);
  switch (fn) {
    case COST_FUNCTION:
      return { cost: args[1].cost, shape: args[1].shape };
    case "_?_:_":
      return {
        cost: args[0].cost + Math.max(args[1].cost, args[2].cost),
        shape: args[1].shape.size >= args[2].shape.size ? args[1].shape : args[2].shape,
      };
    case "_&&_":
    case "_||_":
    case "!_":
    case "@not_strictly_false":
      return { cost: sum, shape: { size: 1 } };
    case "_[_]":
      return {
        cost: sum + 1,
        shape: shapeOf(args[0].shape.schema?.items ?? fieldSchema(args[0].shape.schema, "")),
      };
    case "_==_":
    case "_!=_":
      // Comparing stops at the shorter operand.
      return {
        cost: sum + Math.max(1, traversal(Math.min(operands[0].shape.size, operands[1].shape.size))),
        shape: { size: 1 },
      };
    case "matches":
      return {
        cost: sum + traversal(operands[0].shape.size) * Math.ceil(operands[1].shape.size * 0.25),
        shape: { size: 1 },
      };
    case "_+_":
      return {
        cost: sum + traversal(operands[0].shape.size + operands[1].shape.size),
        shape: { size: operands[0].shape.size + operands[1].shape.size, schema: operands[0].shape.schema },
      };
    case "split":
      return {
        cost: sum + traversal(operands[0].shape.size),
        shape: {
          size: operands[0].shape.size,
          schema: { type: "array", items: { type: "string", maxLength: operands[0].shape.size } },
        },
      };
    default:
      return {
        cost: sum + (TRAVERSING.has(fn) ? Math.max(1, traversal(operands[0]?.shape.size ?? 0)) : 1),
        shape: { size: operands[0]?.shape.size ?? 1 },
      };
  }
}

function estimateComprehension(
  c: Extract<Expr["exprKind"], { case: "comprehensionExpr" }>["value"],
  scope: Scope,
): Estimate {
  const range = c.iterRange ? estimateNode(c.iterRange, scope) : { cost: 0, shape: { size: 0 } };
  const init = c.accuInit ? estimateNode(c.accuInit, scope) : { cost: 0, shape: { size: 0 } };
  const rangeSchema = range.shape.schema;
  const element: Shape =
    rangeSchema?.type === "array"
      ? shapeOf(rangeSchema.items)
      : rangeSchema?.type === "object"
        ? { schema: { type: "string" }, size: MAX_REQUEST_BYTES - 2 }
        : { size: range.shape.size };
  const inner = new Map(scope);
  inner.set(c.iterVar, element);
  inner.set(c.accuVar, { size: range.shape.size });
  const condition = c.loopCondition ? estimateNode(c.loopCondition, inner).cost : 0;
  const step = c.loopStep ? estimateNode(c.loopStep, inner).cost : 0;
  const result = c.result ? estimateNode(c.result, inner) : { cost: 0, shape: { size: 0 } };
  return {
    cost: range.cost + init.cost + range.shape.size * (condition + step) + result.cost,
    shape: { size: range.shape.size, schema: rangeSchema },
  };
}

/** The worst cost of an expression evaluated with `self` (and `oldSelf`) of `schema` (checker.Cost). */
export function estimateCost(e: Expr, schema: JSONSchemaProps): number {
  const self = shapeOf(schema);
  return estimateNode(
    e,
    new Map([
      ["self", self],
      ["oldSelf", self],
    ]),
  ).cost;
}
