import * as assert from "node:assert/strict";
import { InputError, InputErrors } from "../builders/errors";

/** The InputError `fn` throws; fails the test when it throws nothing or something else. */
export function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  assert.fail("expected an InputError");
}

/** The InputErrors `fn` throws together (one or several), in the order the checks ran. */
export function inputErrors(fn: () => unknown): readonly InputError[] {
  try {
    fn();
  } catch (e) {
    return InputErrors.of(e);
  }
  assert.fail("expected InputErrors");
}
