/**
 * Evaluating `x-kubernetes-validations` as kube-apiserver does (k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go, Validator.validate and validateExpressions): every rule of
 * every schema node a value has, with `self` the value; transition rules (those reading `oldSelf`) only
 * where an old value correlates (object fields, map-list items by key; `optionalOldSelf` rules also
 * without one); a false rule is `Invalid value: "<type>": <message>` at the node's path (or its
 * `fieldPath`), worded by `messageExpression` when it yields one and typed by `reason`; evaluation
 * errors and cost limits as the server words them. On update, errors of rules that do not read
 * `oldSelf` are ratcheted: dropped where the value (or its nearest correlatable ancestor) is unchanged
 * (KEP-4008, ratchetingOptions.shouldRatchetError).
 */
import { jsonEqual } from "../../../primitives/objects";
import { JSONSchemaProps } from "../crds";
import { fieldError, FieldError } from "../validate";
import { CompileError, compile, Program } from "./compile";
import { COST_LIMIT_EXCEEDED, metered, PER_CALL_LIMIT } from "./cost";
import { optionalNone, optionalOf } from "./opaque";
import { toCelValue } from "./values";

/** A rule as the CRD declares it (ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The largest message a messageExpression may produce (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;

/** What validating an object's rules found. */
export interface CelOutcome {
  errors: FieldError[];
  /** Errors ratcheting turned into warnings, as the server returns them in Warning headers. */
  warnings: string[];
}

/** Where ratcheting looks: the old value correlated with this node, or (none) the nearest ancestor's verdict. */
interface Correlation {
  /** The correlated old value; absent when this node correlates with nothing. */
  old?: { value: unknown };
  /** Whether the nearest correlatable ancestor is unchanged. */
  parentUnchanged: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const rulesOf = (schema: JSONSchemaProps) => (schema["x-kubernetes-validations"] ?? []) as ValidationRule[];

/** ruleErrorString: the message, else the rule. */
const ruleErrorString = (rule: ValidationRule) => (rule.message ? rule.message.trim() : rule.rule.trim());

function withReason(
  path: string,
  type: string,
  detail: string,
  reason: ValidationRule["reason"],
): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return fieldError("forbidden", path, undefined, detail);
    case "FieldValueRequired":
      return fieldError("required", path, undefined, detail);
    case "FieldValueDuplicate":
      return fieldError("duplicate", path, type, "");
    default:
      return fieldError("invalid", path, type, detail);
  }
}

/**
 * validation.go, ValidFieldPath: a rule's `fieldPath` (`.a.b`, `['c']`) as the server appends it to
 * the node's path.
 */
export function normalizedFieldPath(fieldPath: string): string {
  const parts: string[] = [];
  const pattern = /\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(fieldPath))) {
    if (match[1] !== undefined) parts.push(parts.length ? `.${match[1]}` : match[1]);
    else parts.push(`[${match[2].replace(/\\(.)/g, "$1")}]`);
  }
  return parts.join("");
}

/** How the server prints the root's path (a nil field.Path). */
const ROOT = "<nil>";

const appendPath = (base: string, child: string) =>
  base === ROOT ? child : child.startsWith("[") ? base + child : `${base}.${child}`;

/** One object's validation: the errors and warnings found and the cost budget left. */
class Evaluation {
  errors: FieldError[] = [];
  warnings: string[] = [];
  remaining: number;
  constructor(budget: number) {
    this.remaining = budget;
  }
  get exhausted() {
    return this.remaining < 0;
  }
}

function evaluationMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // cel-go's wording of the errors the evaluator here words its own way.
  return message
    .replace(/^field not found: (.*)$/, "no such key: $1")
    .replace(/^int divide by zero$/, "division by zero")
    .replace(/^found no matching overload for '([^']*)'.*$/, "no such overload: $1");
}

function evaluateMessageExpression(
  source: string,
  self: unknown,
  oldSelf: unknown,
  run: Evaluation,
): { message?: string; stop?: FieldError["message"] } {
  let program: Program;
  try {
    program = compile(source);
  } catch {
    return {};
  }
  const outcome = metered(PER_CALL_LIMIT, () => program.eval(self, oldSelf));
  if (outcome.cost > run.remaining) {
    return {
      stop: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
    };
  }
  run.remaining -= outcome.cost;
  if ("error" in outcome) {
    if (evaluationMessage(outcome.error) === COST_LIMIT_EXCEEDED) {
      return {
        stop: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(source)}`,
      };
    }
    return {};
  }
  if (typeof outcome.value !== "string") return {};
  const message = outcome.value.trim();
  if (!message || Buffer.byteLength(message) > MAX_MESSAGE_BYTES || /\n/.test(message)) return {};
  return { message };
}

function validateRules(
  schema: JSONSchemaProps,
  value: unknown,
  old: unknown,
  path: string,
  resourceRoot: boolean,
  correlation: Correlation,
  run: Evaluation,
): void {
  const rules = rulesOf(schema);
  if (rules.length === 0) return;
  const type = schema.type ?? "";
  if (run.remaining <= 0) {
    run.errors.push(
      fieldError(
        "invalid",
        path,
        type,
        "validation failed due to running out of cost budget, no further validation rules will be run",
      ),
    );
    run.remaining = -1;
    return;
  }
  const self = toCelValue(value, schema, resourceRoot);
  const oldSelf = old === undefined ? undefined : toCelValue(old, schema, resourceRoot);
  const unchanged = correlation.old ? jsonEqual(value, correlation.old.value) : correlation.parentUnchanged;
  for (const rule of rules) {
    let program: Program;
    try {
      program = compile(rule.rule);
    } catch (error) {
      run.errors.push(
        fieldError("invalid", path, type, `rule compile error: ${(error as CompileError).message}`),
      );
      continue;
    }
    if (program.usesOldSelf && old === undefined && !rule.optionalOldSelf) continue;
    const ruleOldSelf = rule.optionalOldSelf
      ? old === undefined
        ? optionalNone()
        : optionalOf(oldSelf)
      : oldSelf;
    const outcome = metered(PER_CALL_LIMIT, () => program.eval(self, ruleOldSelf));
    if ("error" in outcome && evaluationMessage(outcome.error) === COST_LIMIT_EXCEEDED) {
      run.errors.push(
        fieldError(
          "invalid",
          path,
          type,
          `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
        ),
      );
      run.remaining = -1;
      return;
    }
    if (outcome.cost > run.remaining) {
      run.errors.push(
        fieldError(
          "invalid",
          path,
          type,
          "validation failed due to running out of cost budget, no further validation rules will be run",
        ),
      );
      run.remaining = -1;
      return;
    }
    run.remaining -= outcome.cost;
    if ("error" in outcome) {
      run.errors.push(
        fieldError(
          "invalid",
          path,
          type,
          `${evaluationMessage(outcome.error)} evaluating rule: ${ruleErrorString(rule)}`,
        ),
      );
      continue;
    }
    if (outcome.value === true) continue;
    const at = rule.fieldPath ? appendPath(path, normalizedFieldPath(rule.fieldPath)) : path;
    let detail = rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
    if (rule.messageExpression) {
      const evaluated = evaluateMessageExpression(rule.messageExpression, self, ruleOldSelf, run);
      if (evaluated.stop) {
        run.errors.push(fieldError("invalid", at, type, evaluated.stop));
        run.remaining = -1;
        return;
      }
      if (evaluated.message) detail = evaluated.message;
    }
    const error = withReason(at, type, detail, rule.reason);
    if (!program.usesOldSelf && unchanged) run.warnings.push(`${error.field}: ${error.message}`);
    else run.errors.push(error);
  }
}

/** The old item a list item correlates with: by key in a map list, by value in a set (CorrelatedObject.Index). */
function correlatedItem(
  schema: JSONSchemaProps,
  item: unknown,
  old: unknown,
): { value: unknown } | undefined {
  if (!Array.isArray(old)) return undefined;
  const type = schema["x-kubernetes-list-type"];
  if (type === "map") {
    const keys = schema["x-kubernetes-list-map-keys"] ?? [];
    if (!isRecord(item)) return undefined;
    const found = old.find((o) => isRecord(o) && keys.every((k) => jsonEqual(o[k], item[k])));
    return found === undefined ? undefined : { value: found };
  }
  if (type === "set") {
    const found = old.find((o) => jsonEqual(o, item));
    return found === undefined ? undefined : { value: found };
  }
  return undefined;
}

function walk(
  schema: JSONSchemaProps,
  value: unknown,
  old: unknown,
  path: string,
  resourceRoot: boolean,
  correlation: Correlation,
  run: Evaluation,
): void {
  if (value === null || value === undefined || run.exhausted) return;
  validateRules(schema, value, old, path, resourceRoot, correlation, run);
  if (run.exhausted) return;
  for (const branch of schema.allOf ?? []) {
    walk(
      { ...branch, type: schema.type },
      value,
      old,
      path,
      resourceRoot,
      { parentUnchanged: correlation.parentUnchanged },
      run,
    );
    if (run.exhausted) return;
  }
  const here = correlation.old ? jsonEqual(value, correlation.old.value) : correlation.parentUnchanged;
  const child = (oldChild: { value: unknown } | undefined): Correlation =>
    correlation.old
      ? { old: oldChild, parentUnchanged: here }
      : { parentUnchanged: correlation.parentUnchanged };
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return;
    value.forEach((item, i) => {
      if (run.exhausted) return;
      const oldItem =
        schema["x-kubernetes-list-type"] === "map" ? correlatedItem(schema, item, old) : undefined;
      const ratchetWith = correlation.old ? correlatedItem(schema, item, correlation.old.value) : undefined;
      walk(
        items,
        item,
        oldItem?.value,
        appendPath(path, `[${i}]`),
        items["x-kubernetes-embedded-resource"] === true,
        child(ratchetWith),
        run,
      );
    });
    return;
  }
  if (!isRecord(value)) return;
  const oldMap = isRecord(old) ? old : undefined;
  const additional = isRecord(schema.additionalProperties)
    ? (schema.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const [key, childValue] of Object.entries(value)) {
    if (run.exhausted) return;
    const childSchema = schema.properties?.[key] ?? additional;
    if (!childSchema) continue;
    const oldChild = oldMap && key in oldMap ? oldMap[key] : undefined;
    const ratchetOld =
      correlation.old && isRecord(correlation.old.value) && key in correlation.old.value
        ? { value: correlation.old.value[key] }
        : undefined;
    const childPath = schema.properties?.[key]
      ? appendPath(path, key)
      : path === ROOT
        ? `[${key}]`
        : `${path}[${key}]`;
    walk(
      childSchema,
      childValue,
      oldChild,
      childPath,
      childSchema["x-kubernetes-embedded-resource"] === true,
      child(ratchetOld),
      run,
    );
  }
}

/**
 * The rules' verdict on an object (a create without `old`), with the cost budget a request has
 * (celconfig.RuntimeCELCostBudget).
 */
export function validateCel(
  schema: JSONSchemaProps,
  object: unknown,
  old: unknown,
  budget: number,
): CelOutcome {
  const run = new Evaluation(budget);
  const correlation: Correlation =
    old === undefined ? { parentUnchanged: false } : { old: { value: old }, parentUnchanged: false };
  walk(schema, object, old, ROOT, true, correlation, run);
  return { errors: run.errors, warnings: run.warnings };
}

/** Whether a schema holds any rule (hasXValidations), so objects of kinds without any skip the walk. */
export function hasRules(schema: JSONSchemaProps | undefined): boolean {
  if (!schema) return false;
  if (rulesOf(schema).length > 0) return true;
  if (hasRules(schema.items)) return true;
  if (isRecord(schema.additionalProperties) && hasRules(schema.additionalProperties as JSONSchemaProps))
    return true;
  if ((schema.allOf ?? []).some(hasRules)) return true;
  return Object.values(schema.properties ?? {}).some(hasRules);
}
