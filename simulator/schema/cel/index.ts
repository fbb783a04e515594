export { validateCel, hasRules } from "./validator";
export type { CelOutcome, ValidationRule } from "./validator";
export { RUNTIME_BUDGET } from "./cost";
export { definitionRuleErrors } from "./definition";
