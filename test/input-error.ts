import * as assert from "node:assert/strict";
import { InputError } from "../builders/errors";

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
